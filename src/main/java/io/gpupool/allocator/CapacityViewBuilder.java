package io.gpupool.allocator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Assembles a {@link CapacityView}: nodes in the order given (which is also the default tie-break
 * order, unless {@link #tieBreak(Random)} shuffles it), GPUs in the order added to each node.
 */
public final class CapacityViewBuilder {
    private final List<NodeSpec> nodes = new ArrayList<>();
    private Random tieBreak;
    private long defaultCpuMilli;
    private long defaultMemoryMib;

    CapacityViewBuilder() {
    }

    public NodeSpec node(String id) {
        NodeSpec spec = new NodeSpec(this, id).cpuMilli(defaultCpuMilli).memoryMib(defaultMemoryMib);
        nodes.add(spec);
        return spec;
    }

    /** CPU and memory every node added afterwards starts with (tests and synthetic fleets). */
    public CapacityViewBuilder nodeDefaults(long cpuMilli, long memoryMib) {
        defaultCpuMilli = cpuMilli;
        defaultMemoryMib = memoryMib;
        return this;
    }

    /** Random node order for ties, fixed for this view and everything derived from it (the paper's protocol). */
    public CapacityViewBuilder tieBreak(Random random) {
        tieBreak = random;
        return this;
    }

    public CapacityView build() {
        int n = nodes.size();
        int gpuTotal = 0;
        for (NodeSpec s : nodes) {
            gpuTotal += s.gpus.size();
        }
        Interner models = new Interner();
        Interner nvlinks = new Interner();
        Interner pools = new Interner();
        Interner racks = new Interner();
        Interner migProfiles = new Interner();
        Interner labels = new Interner();
        String[] nodeIds = new String[n];
        int[] gpuStart = new int[n + 1];
        String[] deviceIds = new String[gpuTotal];
        int[] gpuModel = new int[gpuTotal];
        long[] gpuMemory = new long[gpuTotal];
        int[] gpuNvlink = new int[gpuTotal];
        boolean[] schedulable = new boolean[gpuTotal];
        boolean[] mig = new boolean[gpuTotal];
        int[] gpuPool = new int[gpuTotal];
        int[] gpuUsed = new int[gpuTotal];
        int[] nodeRack = new int[n];
        String[] clusters = new String[n];
        String[] sites = new String[n];
        long[] cpuCap = new long[n];
        long[] memCap = new long[n];
        long[] cpuFree = new long[n];
        long[] memFree = new long[n];
        List<GpuSpec> flat = new ArrayList<>(gpuTotal);
        int g = 0;
        for (int i = 0; i < n; i++) {
            NodeSpec s = nodes.get(i);
            nodeIds[i] = s.id;
            gpuStart[i] = g;
            nodeRack[i] = racks.id(s.rack);
            clusters[i] = s.cluster;
            sites[i] = s.site;
            cpuCap[i] = s.cpuMilli;
            memCap[i] = s.memoryMib;
            cpuFree[i] = s.cpuMilli - s.usedCpuMilli;
            memFree[i] = s.memoryMib - s.usedMemoryMib;
            for (GpuSpec gpu : s.gpus) {
                deviceIds[g] = gpu.deviceId();
                gpuModel[g] = models.id(gpu.model());
                gpuMemory[g] = gpu.memoryMib();
                gpuNvlink[g] = gpu.nvlinkDomain() == null ? -1 : nvlinks.id(gpu.nvlinkDomain());
                schedulable[g] = gpu.schedulable();
                mig[g] = gpu.isMig();
                gpuPool[g] = gpu.pool() == null ? -1 : pools.id(gpu.pool());
                gpuUsed[g] = gpu.usedMilli();
                gpu.migLayout().forEach(migProfiles::id);
                gpu.labels().forEach(labels::id);
                flat.add(gpu);
                g++;
            }
        }
        gpuStart[n] = g;
        String[] profiles = migProfiles.table();
        int[] profileMilli = new int[profiles.length];
        for (int p = 0; p < profiles.length; p++) {
            profileMilli[p] = CapacityLayout.migMilli(profiles[p]);
        }
        String[] labelTable = labels.table();
        int labelWords = CapacityLayout.labelWords(labelTable.length);
        long[] gpuLabels = new long[gpuTotal * labelWords];
        for (int i = 0; i < gpuTotal; i++) {
            for (String label : flat.get(i).labels()) {
                int bit = labels.id(label);
                gpuLabels[i * labelWords + bit / 64] |= 1L << (bit % 64);
            }
        }
        CapacityLayout layout = new CapacityLayout(nodeIds, gpuStart, deviceIds, models.table(), gpuModel, gpuMemory,
                nvlinks.table(), gpuNvlink, schedulable, mig, pools.table(), gpuPool, racks.table(), nodeRack,
                clusters, sites, cpuCap, memCap, rankOrder(n), profiles, profileMilli, labelTable, gpuLabels);
        int[] gpuFree = new int[gpuTotal];
        int[][] migFree = profiles.length == 0 ? null : new int[gpuTotal][];
        for (int i = 0; i < gpuTotal; i++) {
            GpuSpec gpu = flat.get(i);
            if (gpu.isMig()) {
                migFree[i] = new int[profiles.length];
                for (String p : gpu.migLayout()) {
                    migFree[i][layout.indexOf(profiles, p)]++;
                }
                for (String p : gpu.migUsed()) {
                    // A partition the card no longer lists (re-partitioned under its lease) takes none of
                    // the ones it does, as when a lease change is applied (CapacityView.adjust).
                    int profile = layout.indexOf(profiles, p);
                    if (profile >= 0) {
                        migFree[i][profile]--;
                    }
                }
                int free = 0;
                for (int p = 0; p < profiles.length; p++) {
                    free += migFree[i][p] * profileMilli[p];
                }
                gpuFree[i] = free;
            } else {
                gpuFree[i] = Math.max(0, PlacementRequest.WHOLE - gpuUsed[i]);
            }
        }
        int[] classes = new int[n];
        for (int i = 0; i < n; i++) {
            classes[i] = nodes.get(i).hosting;
        }
        return new CapacityView(layout, gpuFree, cpuFree, memFree, classes, migFree);
    }

    private int[] rankOrder(int n) {
        int[] rank = new int[n];
        for (int i = 0; i < n; i++) {
            rank[i] = i;
        }
        if (tieBreak != null) {
            for (int i = n - 1; i > 0; i--) {
                int j = tieBreak.nextInt(i + 1);
                int t = rank[i];
                rank[i] = rank[j];
                rank[j] = t;
            }
        }
        return rank;
    }

    /** Dense ids for repeated strings (models, racks, pools …), in first-seen order. */
    private static final class Interner {
        private final Map<String, Integer> ids = new LinkedHashMap<>();

        int id(String value) {
            return ids.computeIfAbsent(value == null ? "" : value, k -> ids.size());
        }

        String[] table() {
            return ids.keySet().toArray(String[]::new);
        }
    }
}
