package io.gpupool.allocator;

import io.gpupool.snapshot.PoolSnapshot;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Whether a request could ever be placed in a pool, however long it waited: a placement by the
 * allocator's own gang planner and member search on the inventory as it could ever be
 * ({@link SnapshotCapacity#potential}: nothing leased, every card in service placeable). So every
 * constraint the search applies — pool, sharing mode, model, memory, MIG partition, GPUs per node,
 * topology, gang size, and whatever GPU check it gains next — decides here too, with no copy of
 * them. When it never fits, why: the furthest check ({@link MemberSearch#firstFailure}) any node of
 * the pool passes, with the numbers a person needs ("the largest node in pool inference has 4
 * T4-PCIE-16G GPUs; the request needs 8 on one node").
 *
 * <p>Verdicts are remembered per request shape and pool until the inventory or tenancy changes
 * (the writer's capacity view gets a new layout), so asking costs a map lookup on the decision
 * path; the potential view is built once per such change, when first asked. Single writer thread,
 * like the allocators.
 */
public final class Feasibility {
    /** More shapes than this and the memory starts over: shapes are few (kind, size, models, memory, topology). */
    private static final int MAX_VERDICTS = 1024;
    /** Stands for "fits once free" in the verdict map. */
    private static final NeverFits FITS = new NeverFits(null, null, null);
    /** Feasibility needs no preference between nodes: the first that fits will do. */
    private static final PlacementStrategy FIRST_FIT = new PlacementStrategy() {
        @Override
        public String name() {
            return "feasibility";
        }

        @Override
        public double score(CapacityView view, Candidate candidate, PlacementRequest member) {
            return 0;
        }
    };

    private final MemberSearch search = new MemberSearch(FIRST_FIT);
    private final GangPlanner gangs = new GangPlanner(search);
    private final Map<Key, NeverFits> verdicts = new HashMap<>();
    private Object builtFor;
    private CapacityView potential;

    /**
     * Why a request never fits in a pool: the constraint, a reason code ({@code NEVER_FITS_*}) and a
     * sentence naming the pools as {@value #POOLS} (see {@link #message(String...)}).
     */
    public record NeverFits(Constraint constraint, String reasonCode, String template) {
        static final String POOLS = "{pools}";

        /** The sentence for these pools ("pool inference", "pools inference, elastic"). */
        public String message(String... pools) {
            return template.replace(POOLS, (pools.length == 1 ? "pool " : "pools ") + String.join(", ", pools));
        }
    }

    private record Key(PlacementRequest shape, String pool) {
    }

    /**
     * The pools of {@code pools} (in order) where {@code request} never fits, each with why; the
     * others could host it once enough is free. {@code current} is the writer's view of
     * {@code snapshot} (its layout says when the inventory changed).
     */
    public Map<String, NeverFits> neverFits(PoolSnapshot snapshot, CapacityView current, PlacementRequest request,
                                            List<String> pools) {
        if (current.lineage() != builtFor || verdicts.size() >= MAX_VERDICTS) {
            if (current.lineage() != builtFor) {
                potential = SnapshotCapacity.potential(snapshot);
                builtFor = current.lineage();
            }
            verdicts.clear();
        }
        PlacementRequest shape = new PlacementRequest(null, request.gangSize(), request.gpusPerMember(),
                request.milliPerGpu(), request.migProfile(), request.allowedModels(), request.excludedModels(),
                request.minGpuMemoryMib(), request.cpuMilli(), request.memoryMib(), request.topology(), Set.of(),
                request.requiredLabels());
        Map<String, NeverFits> never = new LinkedHashMap<>();
        for (String pool : pools) {
            NeverFits verdict = verdicts.computeIfAbsent(new Key(shape, pool), k -> judge(shape.withPools(Set.of(pool))));
            if (verdict != FITS) {
                never.put(pool, verdict);
            }
        }
        return never;
    }

    /** One sentence over several pools' reasons: pools with the same reason are named together, in order. */
    public static String summary(Map<String, NeverFits> never) {
        Map<String, List<String>> poolsByTemplate = new LinkedHashMap<>();
        never.forEach((pool, why) -> poolsByTemplate.computeIfAbsent(why.template(), t -> new ArrayList<>()).add(pool));
        List<String> parts = new ArrayList<>();
        poolsByTemplate.forEach((template, pools) -> parts.add(
                new NeverFits(null, null, template).message(pools.toArray(String[]::new))));
        return String.join("; ", parts);
    }

    private NeverFits judge(PlacementRequest request) {
        return gangs.plan(potential, request) != null ? FITS : explain(request);
    }

    /** Why a placement on the potential view failed, in the terms of the search's checks. */
    private NeverFits explain(PlacementRequest request) {
        CapacityView p = potential;
        CapacityLayout l = p.layout;
        PlacementRequest member = request.singleMember();
        search.prepare(p, member, null);
        Constraint furthest = null;
        boolean hostsMember = false;
        int mostUsable = 0;
        Set<String> modelsOnLargest = new TreeSet<>();
        Set<String> models = new TreeSet<>();
        Set<String> profiles = new TreeSet<>();
        long largestMemory = 0;
        long membersTogether = 0;
        long mostOnOneNode = 0;
        long[] byRack = new long[l.racks.length];
        int[] byDomain = new int[l.nvlinkDomains.length];
        for (int n = 0; n < l.nodeCount; n++) {
            Constraint failed = search.firstFailure(p, member, n, -1);
            if (failed == null) {
                hostsMember = true;
            } else if (furthest == null || failed.ordinal() > furthest.ordinal()) {
                furthest = failed;
            }
            int usable = 0;
            long members = 0;
            Set<String> usableModels = new TreeSet<>();
            for (int g = l.gpuStart[n]; g < l.gpuStart[n + 1]; g++) {
                if (!p.inPools(g, member.pools()) || !l.gpuSchedulable[g]) {
                    continue;
                }
                String model = l.models[l.gpuModel[g]];
                models.add(model);
                if (l.gpuMig[g] && p.hasMig()) {
                    for (int q = 0; q < l.migProfiles.length; q++) {
                        if (p.migFree(g, q) > 0) {
                            profiles.add(l.migProfiles[q]);
                        }
                    }
                }
                if (member.allowsModel(model) && l.gpuMig[g] == member.isMig()) {
                    largestMemory = Math.max(largestMemory, l.gpuMemoryMib[g]);
                }
                if (!search.usable(p, member, g)) {
                    continue;
                }
                usable++;
                usableModels.add(model);
                if (l.gpuNvlink[g] >= 0) {
                    byDomain[l.gpuNvlink[g]]++;
                }
                members += member.isMig() ? migPartitions(p, g, member.migProfile())
                        : member.isFractional() ? PlacementRequest.WHOLE / Math.max(1, member.milliPerGpu()) : 0;
            }
            if (!member.isMig() && !member.isFractional()) {
                members = member.gpusPerMember() == 0 ? 0 : usable / member.gpusPerMember();
            }
            if (usable > mostUsable) {
                mostUsable = usable;
                modelsOnLargest = usableModels;
            } else if (usable == mostUsable && usable > 0) {
                modelsOnLargest.addAll(usableModels);
            }
            membersTogether += members;
            mostOnOneNode = Math.max(mostOnOneNode, members);
            byRack[l.nodeRack[n]] += members;
        }
        String pools = NeverFits.POOLS;
        if (hostsMember) {
            return topology(request, pools, byDomain, byRack, mostOnOneNode, membersTogether);
        }
        if (furthest == null || furthest == Constraint.POOL) {
            return new NeverFits(Constraint.POOL, "NEVER_FITS_POOL", "no GPU in service in " + pools);
        }
        return switch (furthest) {
            case HEALTH -> new NeverFits(furthest, "NEVER_FITS_GPU_KIND", member.isMig()
                    ? "no MIG-partitioned card in service in " + pools + "; ask for whole GPUs or a fraction instead"
                    : "only MIG-partitioned cards in service in " + pools + "; ask for a migProfile instead");
            case MODEL -> new NeverFits(furthest, "NEVER_FITS_MODEL", "no card of model "
                    + String.join(", ", new TreeSet<>(member.allowedModels())) + " in " + pools + " (only "
                    + String.join(", ", models) + ")");
            case LABEL -> new NeverFits(furthest, "NEVER_FITS_LABEL", "no card of an allowed model in " + pools
                    + " carries every profile label " + String.join(", ", new TreeSet<>(member.requiredLabels()))
                    + " (GET /api/v1/devices?label=… shows which cards carry one)");
            case GPU_MEMORY -> new NeverFits(furthest, "NEVER_FITS_GPU_MEMORY", "the card of an allowed model with the most"
                    + " memory in " + pools + " has " + largestMemory + " MiB; the request needs " + member.minGpuMemoryMib()
                    + " MiB per GPU");
            case GPU_CAPACITY -> member.isMig()
                    ? new NeverFits(furthest, "NEVER_FITS_MIG_PROFILE", "no card in " + pools + " offers MIG partition "
                    + member.migProfile() + (profiles.isEmpty() ? "" : " (they offer " + String.join(", ", profiles) + ")"))
                    : new NeverFits(furthest, "NEVER_FITS_GPUS_PER_NODE", "the largest node in " + pools + " has "
                    + mostUsable + " " + String.join("/", modelsOnLargest) + (mostUsable == 1 ? " GPU" : " GPUs") + "; the request needs "
                    + member.gpusPerMember() + " on one node");
            default -> new NeverFits(furthest, "NEVER_FITS_" + furthest.name(), "no node in " + pools
                    + " can ever host one member: " + furthest.meaning());
        };
    }

    /** Some node hosts one member: the gang as a whole, or its required topology, is what never fits. */
    private static NeverFits topology(PlacementRequest request, String pools, int[] byDomain, long[] byRack,
                                      long mostOnOneNode, long membersTogether) {
        String each = " of " + describe(request);
        Topology topology = request.topology();
        if (topology.required() && topology.scope() == TopologyScope.NVLINK_DOMAIN) {
            int largest = 0;
            for (int d : byDomain) {
                largest = Math.max(largest, d);
            }
            return new NeverFits(Constraint.TOPOLOGY, "NEVER_FITS_TOPOLOGY", largest == 0
                    ? "no NVLink domain of usable cards in " + pools + "; the request needs one"
                    : "the largest NVLink domain in " + pools + " has " + largest + " usable GPUs; the request needs "
                    + (long) request.gangSize() * Math.max(1, request.gpusPerMember()) + " in one domain");
        }
        if (topology.required() && topology.scope() == TopologyScope.RACK) {
            long largest = 0;
            for (long r : byRack) {
                largest = Math.max(largest, r);
            }
            return new NeverFits(Constraint.TOPOLOGY, "NEVER_FITS_TOPOLOGY", "one rack in " + pools + " holds at most "
                    + members(largest) + each + "; the gang needs " + request.gangSize() + " in one rack");
        }
        if (topology.required() && topology.scope() == TopologyScope.NODE) {
            return new NeverFits(Constraint.TOPOLOGY, "NEVER_FITS_TOPOLOGY", "one node in " + pools + " holds at most "
                    + members(mostOnOneNode) + each + "; the gang needs " + request.gangSize() + " on one node");
        }
        return new NeverFits(Constraint.TOPOLOGY, "NEVER_FITS_GANG", "at most " + members(membersTogether) + each
                + " fit in " + pools + " at once; the gang has " + request.gangSize());
    }

    private static String members(long n) {
        return n + (n == 1 ? " member" : " members");
    }

    private static String describe(PlacementRequest r) {
        if (r.isMig()) {
            return "one MIG " + r.migProfile() + " partition";
        }
        if (r.isFractional()) {
            return r.milliPerGpu() + " milli-GPU";
        }
        return r.gpusPerMember() + (r.gpusPerMember() == 1 ? " GPU" : " GPUs");
    }

    private static int migPartitions(CapacityView p, int gpu, String profile) {
        int q = p.layout.indexOf(p.layout.migProfiles, profile);
        return q < 0 || p.migRow(gpu) == null ? 0 : p.migRow(gpu)[q];
    }
}
