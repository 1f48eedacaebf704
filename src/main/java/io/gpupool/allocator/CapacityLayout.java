package io.gpupool.allocator;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The part of a capacity view that never changes between commits: identities, models, memory,
 * health, pools, NVLink domains, racks and the static indexes (nodes by model, by pool). Shared by
 * every view derived from one build, so a commit copies only the mutable state. GPUs of all nodes
 * are laid out in one flat array; node {@code n} owns {@code [gpuStart[n], gpuStart[n+1])}.
 */
final class CapacityLayout {
    final int nodeCount;
    final int gpuCount;
    final int words;
    final String[] nodeIds;
    final int[] gpuStart;
    final String[] deviceIds;
    final String[] models;
    final int[] gpuModel;
    final long[] gpuMemoryMib;
    final String[] nvlinkDomains;
    final int[] gpuNvlink;
    final boolean[] gpuSchedulable;
    final boolean[] gpuMig;
    final String[] pools;
    final int[] gpuPool;
    final String[] racks;
    final int[] nodeRack;
    final String[] nodeCluster;
    final String[] nodeSite;
    final long[] nodeCpuCapacity;
    final long[] nodeMemoryCapacity;
    final int[] nodeRank;
    final long[][] nodesByModel;
    final long[][] nodesByPool;
    final String[] migProfiles;
    final int[] migProfileMilli;
    final int maxGpusPerNode;
    /** Profile labels any GPU carries, and per GPU a bit set over them ({@link #labelWords} longs each). */
    final String[] labels;
    final int labelWords;
    final long[] gpuLabels;
    /** Id → index for the two large tables; a linear scan over 10,000 device ids per share was the cost of preemption. */
    private final Map<String, Integer> nodeIndex;
    private final Map<String, Integer> gpuIndex;
    /** Source of node stamps: unique across every view of this layout, including discarded trials. */
    final AtomicLong stamps = new AtomicLong();

    CapacityLayout(String[] nodeIds, int[] gpuStart, String[] deviceIds, String[] models, int[] gpuModel,
                   long[] gpuMemoryMib, String[] nvlinkDomains, int[] gpuNvlink, boolean[] gpuSchedulable,
                   boolean[] gpuMig, String[] pools, int[] gpuPool, String[] racks, int[] nodeRack,
                   String[] nodeCluster, String[] nodeSite, long[] nodeCpuCapacity, long[] nodeMemoryCapacity,
                   int[] nodeRank, String[] migProfiles, int[] migProfileMilli, String[] labels, long[] gpuLabels) {
        this.nodeCount = nodeIds.length;
        this.gpuCount = deviceIds.length;
        this.words = NodeBits.words(nodeCount);
        this.nodeIds = nodeIds;
        this.gpuStart = gpuStart;
        this.deviceIds = deviceIds;
        this.models = models;
        this.gpuModel = gpuModel;
        this.gpuMemoryMib = gpuMemoryMib;
        this.nvlinkDomains = nvlinkDomains;
        this.gpuNvlink = gpuNvlink;
        this.gpuSchedulable = gpuSchedulable;
        this.gpuMig = gpuMig;
        this.pools = pools;
        this.gpuPool = gpuPool;
        this.racks = racks;
        this.nodeRack = nodeRack;
        this.nodeCluster = nodeCluster;
        this.nodeSite = nodeSite;
        this.nodeCpuCapacity = nodeCpuCapacity;
        this.nodeMemoryCapacity = nodeMemoryCapacity;
        this.nodeRank = nodeRank;
        this.migProfiles = migProfiles;
        this.migProfileMilli = migProfileMilli;
        this.labels = labels;
        this.labelWords = labelWords(labels.length);
        this.gpuLabels = gpuLabels;
        this.nodesByModel = index(models.length, gpuModel);
        this.nodesByPool = index(pools.length, gpuPool);
        int max = 0;
        for (int n = 0; n < nodeCount; n++) {
            max = Math.max(max, gpuStart[n + 1] - gpuStart[n]);
        }
        this.maxGpusPerNode = max;
        this.nodeIndex = positions(nodeIds);
        this.gpuIndex = positions(deviceIds);
    }

    static int labelWords(int labelCount) {
        return Math.max(1, (labelCount + 63) / 64);
    }

    int nodeIndex(String nodeId) {
        return nodeIndex.getOrDefault(nodeId, -1);
    }

    int gpuIndex(String deviceId) {
        return gpuIndex.getOrDefault(deviceId, -1);
    }

    private static Map<String, Integer> positions(String[] ids) {
        Map<String, Integer> positions = new HashMap<>(ids.length * 2);
        for (int i = ids.length - 1; i >= 0; i--) {
            positions.put(ids[i], i); // the first occurrence wins, as with a scan
        }
        return positions;
    }

    /** Nodes having at least one GPU with each attribute value. */
    private long[][] index(int values, int[] gpuAttribute) {
        long[][] byValue = new long[values][words];
        for (int n = 0; n < nodeCount; n++) {
            for (int g = gpuStart[n]; g < gpuStart[n + 1]; g++) {
                if (gpuAttribute[g] >= 0) {
                    NodeBits.set(byValue[gpuAttribute[g]], n, true);
                }
            }
        }
        return byValue;
    }

    /** Position in a small table (models, profiles, pools, racks); the large ones use the maps above. */
    int indexOf(String[] table, String value) {
        for (int i = 0; i < table.length; i++) {
            if (table[i].equals(value)) {
                return i;
            }
        }
        return -1;
    }

    /** Milli of one MIG partition: "3g.40gb" is 3 of 7 compute slices. */
    static int migMilli(String profile) {
        int g = profile.indexOf('g');
        try {
            int slices = Integer.parseInt(profile.substring(0, g));
            return Math.min(1000, slices * 1000 / 7);
        } catch (RuntimeException e) {
            return 1000 / 7;
        }
    }
}
