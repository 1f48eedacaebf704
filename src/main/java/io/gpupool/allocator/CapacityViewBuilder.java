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

    /**
     * The view of the nodes added so far. In steps of their own (the nodes' columns, the cards'
     * columns, the labels, the free capacity), each a short loop: one method of all of them was
     * the JIT's costliest compilation of a policy replay (~100 KB of machine code, compiled six
     * times for 3.3 s of a week's replay, though building is 0.2 % of the replay's time).
     */
    public CapacityView build() {
        int n = nodes.size();
        List<GpuSpec> flat = new ArrayList<>();
        int[] gpuStart = new int[n + 1];
        for (int i = 0; i < n; i++) {
            gpuStart[i] = flat.size();
            flat.addAll(nodes.get(i).gpus);
        }
        gpuStart[n] = flat.size();
        NodeColumns nodeColumns = new NodeColumns(nodes);
        GpuColumns gpus = new GpuColumns(flat);
        String[] profiles = gpus.migProfiles.table();
        int[] profileMilli = new int[profiles.length];
        for (int p = 0; p < profiles.length; p++) {
            profileMilli[p] = CapacityLayout.migMilli(profiles[p]);
        }
        LabelBits labels = new LabelBits(flat);
        CapacityLayout layout = new CapacityLayout(nodeColumns.ids, gpuStart, gpus.deviceIds, gpus.models.table(),
                gpus.model, gpus.memoryMib, gpus.nvlinks.table(), gpus.nvlink, gpus.schedulable, gpus.mig,
                gpus.pools.table(), gpus.pool, nodeColumns.racks.table(), nodeColumns.rack, nodeColumns.clusters,
                nodeColumns.sites, nodeColumns.cpuCapacity, nodeColumns.memoryCapacity, rankOrder(n), profiles,
                profileMilli, labels.table, labels.bits);
        int[][] migFree = profiles.length == 0 ? null : migFree(flat, layout);
        return new CapacityView(layout, gpuFree(flat, layout, migFree), nodeColumns.cpuFree, nodeColumns.memoryFree,
                nodeColumns.hosting, migFree);
    }

    /** Per node: its id, rack, cluster, site, capacity, what is free and the classes it hosts. */
    private static final class NodeColumns {
        final Interner racks = new Interner();
        final String[] ids;
        final int[] rack;
        final String[] clusters;
        final String[] sites;
        final long[] cpuCapacity;
        final long[] memoryCapacity;
        final long[] cpuFree;
        final long[] memoryFree;
        final int[] hosting;

        NodeColumns(List<NodeSpec> nodes) {
            int n = nodes.size();
            ids = new String[n];
            rack = new int[n];
            clusters = new String[n];
            sites = new String[n];
            cpuCapacity = new long[n];
            memoryCapacity = new long[n];
            cpuFree = new long[n];
            memoryFree = new long[n];
            hosting = new int[n];
            for (int i = 0; i < n; i++) {
                NodeSpec s = nodes.get(i);
                ids[i] = s.id;
                rack[i] = racks.id(s.rack);
                clusters[i] = s.cluster;
                sites[i] = s.site;
                cpuCapacity[i] = s.cpuMilli;
                memoryCapacity[i] = s.memoryMib;
                cpuFree[i] = s.cpuMilli - s.usedCpuMilli;
                memoryFree[i] = s.memoryMib - s.usedMemoryMib;
                hosting[i] = s.hosting;
            }
        }
    }

    /** Per card (flat over the nodes): its id, model, memory, NVLink domain, health, MIG and pool. */
    private static final class GpuColumns {
        final Interner models = new Interner();
        final Interner nvlinks = new Interner();
        final Interner pools = new Interner();
        final Interner migProfiles = new Interner();
        final String[] deviceIds;
        final int[] model;
        final long[] memoryMib;
        final int[] nvlink;
        final boolean[] schedulable;
        final boolean[] mig;
        final int[] pool;

        GpuColumns(List<GpuSpec> flat) {
            int count = flat.size();
            deviceIds = new String[count];
            model = new int[count];
            memoryMib = new long[count];
            nvlink = new int[count];
            schedulable = new boolean[count];
            mig = new boolean[count];
            pool = new int[count];
            for (int g = 0; g < count; g++) {
                GpuSpec gpu = flat.get(g);
                deviceIds[g] = gpu.deviceId();
                model[g] = models.id(gpu.model());
                memoryMib[g] = gpu.memoryMib();
                nvlink[g] = gpu.nvlinkDomain() == null ? -1 : nvlinks.id(gpu.nvlinkDomain());
                schedulable[g] = gpu.schedulable();
                mig[g] = gpu.isMig();
                pool[g] = gpu.pool() == null ? -1 : pools.id(gpu.pool());
                gpu.migLayout().forEach(migProfiles::id);
            }
        }
    }

    /** The cards' labels as ids, and per card a bit set of them ({@link CapacityLayout#labelWords} words a card). */
    private static final class LabelBits {
        final String[] table;
        final long[] bits;

        LabelBits(List<GpuSpec> flat) {
            Interner labels = new Interner();
            for (GpuSpec gpu : flat) {
                gpu.labels().forEach(labels::id);
            }
            table = labels.table();
            int words = CapacityLayout.labelWords(table.length);
            bits = new long[flat.size() * words];
            for (int g = 0; g < flat.size(); g++) {
                for (String label : flat.get(g).labels()) {
                    int bit = labels.id(label);
                    bits[g * words + bit / 64] |= 1L << (bit % 64);
                }
            }
        }
    }

    /** Free partitions per MIG card and profile (null rows for other cards). */
    private static int[][] migFree(List<GpuSpec> flat, CapacityLayout layout) {
        String[] profiles = layout.migProfiles;
        int[][] migFree = new int[flat.size()][];
        for (int g = 0; g < flat.size(); g++) {
            GpuSpec gpu = flat.get(g);
            if (!gpu.isMig()) {
                continue;
            }
            migFree[g] = new int[profiles.length];
            for (String p : gpu.migLayout()) {
                migFree[g][layout.indexOf(profiles, p)]++;
            }
            for (String p : gpu.migUsed()) {
                // A partition the card no longer lists (re-partitioned under its lease) takes none of
                // the ones it does, as when a lease change is applied (CapacityView.adjust).
                int profile = layout.indexOf(profiles, p);
                if (profile >= 0) {
                    migFree[g][profile]--;
                }
            }
        }
        return migFree;
    }

    /** Free milli-GPU per card: a MIG card's free partitions' worth, another's capacity less what is used. */
    private static int[] gpuFree(List<GpuSpec> flat, CapacityLayout layout, int[][] migFree) {
        int[] gpuFree = new int[flat.size()];
        for (int g = 0; g < flat.size(); g++) {
            GpuSpec gpu = flat.get(g);
            if (gpu.isMig()) {
                int free = 0;
                for (int p = 0; p < layout.migProfiles.length; p++) {
                    free += migFree[g][p] * layout.migProfileMilli[p];
                }
                gpuFree[g] = free;
            } else {
                gpuFree[g] = Math.max(0, PlacementRequest.WHOLE - gpu.usedMilli());
            }
        }
        return gpuFree;
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
