package io.gpupool.allocator;

import io.gpupool.allocator.strategy.BestFitStrategy;
import io.gpupool.allocator.strategy.FgdStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static io.gpupool.allocator.Fleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One member's node and GPUs ({@link MemberSearch}): the highest score among the nodes that can host
 * it, ties to the lower tie-break rank; only the nodes and the NVLink domain it is limited to; whole
 * GPUs the lowest-indexed eligible ones, a fraction where the strategy says, a MIG partition on the
 * fullest MIG card. A search reused over fleets of every size answers as a brute-force scan of the
 * cards does, and names a first failing constraint exactly for the nodes it cannot use.
 */
class MemberSearchTest {
    private static final String H100 = "H100-SXM-80G";
    private static final String A100 = "A100-SXM-80G";
    private static final String A100_PCIE = "A100-PCIE-40G";
    private static final String L40S = "L40S-PCIE-48G";
    private static final String T4 = "T4-PCIE-16G";

    /** Every node scores alike: the tie-break order alone decides. */
    private static final PlacementStrategy FLAT = scoring("flat", false, (view, c) -> 0);
    /** The node with the most free GPU milli wins. */
    private static final PlacementStrategy MOST_FREE = scoring("most-free", false, (view, c) -> view.freeTotal(c.node()));

    private interface Score {
        double of(CapacityView view, Candidate candidate);
    }

    private static PlacementStrategy scoring(String name, boolean stateOnly, Score score) {
        return new PlacementStrategy() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public double score(CapacityView view, Candidate candidate, PlacementRequest member) {
                return score.of(view, candidate);
            }

            @Override
            public boolean scoresNodeStateOnly() {
                return stateOnly;
            }
        };
    }

    private static List<String> devices(CapacityView view, MemberPlacement p) {
        return Arrays.stream(p.gpus()).mapToObj(view::deviceId).toList();
    }

    private static long[] nodes(CapacityView view, int... indexes) {
        long[] bits = new long[NodeBits.words(view.nodeCount())];
        for (int n : indexes) {
            NodeBits.set(bits, n, true);
        }
        return bits;
    }

    @Test
    void ofEquallyScoredNodesTheFirstInTheTieBreakOrderWinsNotTheFirstAdded() {
        CapacityViewBuilder b = CapacityView.builder().nodeDefaults(Fleet.PLENTY_CPU, Fleet.PLENTY_MEMORY)
                .tieBreak(new Random(7));
        for (int i = 0; i < 6; i++) {
            b.node("l40s-0" + i).gpus(4, L40S);
        }
        CapacityView view = b.build();
        int first = -1;
        for (int n = 0; n < view.nodeCount(); n++) {
            if (view.rank(n) == 0) {
                first = n;
            }
        }

        MemberPlacement p = new MemberSearch(FLAT).find(view, request().gpus(1).build(), null, -1);

        assertThat(first).as("the seed shuffles the order").isPositive();
        assertThat(p.node()).isEqualTo(first);
    }

    @Test
    void theHighestScoreWinsWhereverItIsAndIsKeptAsTheLastScore() {
        CapacityView view = Fleet.of()
                .node("dgx-01").gpus(8, H100).used(0, 1000).used(1, 1000).used(2, 1000).and()
                .node("dgx-02").gpus(8, H100).used(0, 500).and()
                .node("dgx-03").gpus(8, H100).used(0, 1000).build();
        MemberSearch search = new MemberSearch(MOST_FREE);

        MemberPlacement p = search.find(view, request().gpus(2).build(), null, -1);

        assertThat(p.nodeId()).isEqualTo("dgx-02");
        assertThat(search.lastScore).isEqualTo(7_500);
        assertThat(devices(view, p)).containsExactly("dgx-02/gpu1", "dgx-02/gpu2");
    }

    @Test
    void onlyTheNodesItIsLimitedToAreSearched() {
        CapacityView view = Fleet.of()
                .node("l40s-0").gpus(2, L40S).and()
                .node("l40s-1").gpus(2, L40S).used(0, 1000).used(1, 1000).and()
                .node("l40s-2").gpus(2, L40S).and()
                .node("l40s-3").gpus(2, L40S).used(0, 1000).used(1, 1000).build();
        MemberSearch search = new MemberSearch(MOST_FREE);
        PlacementRequest one = request().gpus(1).build();

        assertThat(search.find(view, one, null, -1).nodeId()).isEqualTo("l40s-0");
        assertThat(search.find(view, one, nodes(view, 2, 3), -1).nodeId()).isEqualTo("l40s-2");
        assertThat(search.find(view, one, nodes(view, 1, 3), -1)).isNull();
        assertThat(search.find(view, one, nodes(view), -1)).isNull();
    }

    @Test
    void anNvlinkDomainLimitsTheMemberToThatDomainsFreeCards() {
        CapacityView view = Fleet.of().node("dgx-01")
                .gpus(4, H100, 81_920, "dgx-01-nvl-a").gpus(4, H100, 81_920, "dgx-01-nvl-b").used(4, 1000).build();
        int domainB = view.layout.indexOf(view.layout.nvlinkDomains, "dgx-01-nvl-b");
        MemberSearch search = new MemberSearch(FLAT);

        MemberPlacement two = search.find(view, request().gpus(2).build(), null, domainB);
        MemberPlacement four = search.find(view, request().gpus(4).build(), null, domainB);
        MemberPlacement fourAnywhere = search.find(view, request().gpus(4).build(), null, -1);

        assertThat(devices(view, two)).containsExactly("dgx-01/gpu5", "dgx-01/gpu6");
        assertThat(four).as("only three cards of domain b are free").isNull();
        assertThat(devices(view, fourAnywhere)).containsExactly("dgx-01/gpu0", "dgx-01/gpu1", "dgx-01/gpu2", "dgx-01/gpu3");
    }

    @Test
    void wholeGpusAreTheLowestIndexedCardsThatAreFreeHealthyAndOfAnAllowedModel() {
        CapacityView view = Fleet.of().node("mixed-01")
                .gpus(1, A100).used(0, 200)
                .gpus(1, A100).unhealthy(1)
                .gpus(1, T4)
                .gpus(3, A100).build();

        MemberPlacement p = new MemberSearch(FLAT).find(view, request().gpus(2).excludeModels(T4).build(), null, -1);
        MemberPlacement three = new MemberSearch(FLAT).find(view, request().gpus(4).models(A100).build(), null, -1);

        assertThat(devices(view, p)).containsExactly("mixed-01/gpu3", "mixed-01/gpu4");
        assertThat(p.milliPerGpu()).isEqualTo(PlacementRequest.WHOLE);
        assertThat(three).as("three whole A100s are free, not four").isNull();
    }

    @Test
    void aFractionTakesTheCardTheStrategyChoosesAmongThoseWithRoom() {
        CapacityView view = Fleet.of().node("l40s-01").gpus(4, L40S).used(0, 800).used(1, 300).used(3, 600).build();
        PlacementStrategy firstCard = new PlacementStrategy() {
            @Override
            public String name() {
                return "first-card";
            }

            @Override
            public double score(CapacityView v, Candidate c, PlacementRequest m) {
                return 0;
            }

            @Override
            public int chooseSharedGpu(CapacityView v, Candidate c, PlacementRequest m) {
                return 0;
            }
        };
        PlacementRequest quarter = request().fraction(250).cpuMilli(2_000).memoryMib(8_192).build();

        MemberPlacement byDefault = new MemberSearch(FLAT).find(view, quarter, null, -1);
        MemberPlacement chosen = new MemberSearch(firstCard).find(view, quarter, null, -1);
        MemberPlacement larger = new MemberSearch(firstCard).find(view, request().fraction(750).build(), null, -1);

        // free: gpu0 200 (too little), gpu1 700, gpu2 1000, gpu3 400; by default the fullest that fits
        assertThat(byDefault).isEqualTo(new MemberPlacement(0, "l40s-01", new int[] {3}, 250, null, 2_000, 8_192));
        assertThat(devices(view, chosen)).containsExactly("l40s-01/gpu1");
        assertThat(devices(view, larger)).as("gpu1's 700 is too little for 750").containsExactly("l40s-01/gpu2");
    }

    @Test
    void aMigPartitionGoesToTheMigCardWithTheLeastRoomThatHasOneOfItsProfile() {
        List<String> mixed = List.of("3g.40gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb");
        CapacityView view = Fleet.of().node("dgx-a100-01")
                .gpus(1, A100)
                .gpu(new GpuSpec("dgx-a100-01/gpu1", A100, 81_920, null, true, null, 0, mixed, List.of()))
                .gpu(new GpuSpec("dgx-a100-01/gpu2", A100, 81_920, null, true, null, 0, mixed,
                        List.of("1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb")))
                .gpu(new GpuSpec("dgx-a100-01/gpu3", A100, 81_920, null, true, null, 0, mixed, List.of("3g.40gb")))
                .build();
        MemberSearch search = new MemberSearch(MOST_FREE);

        MemberPlacement small = search.find(view, request().mig("1g.10gb").build(), null, -1);
        MemberPlacement large = search.find(view, request().mig("3g.40gb").build(), null, -1);
        MemberPlacement unknown = search.find(view, request().mig("7g.80gb").build(), null, -1);

        // gpu2: 428 free but no 1g left; gpu3: 4 × 142 = 568 free; gpu1: 996 free
        assertThat(devices(view, small)).containsExactly("dgx-a100-01/gpu3");
        assertThat(small.migProfile()).isEqualTo("1g.10gb");
        assertThat(devices(view, large)).containsExactly("dgx-a100-01/gpu2");
        assertThat(unknown).isNull();
    }

    @Test
    void aCpuOnlyMemberTakesNoGpuAndMayGoWhereThereIsNone() {
        CapacityView view = Fleet.of()
                .node("dgx-01").gpus(8, H100).usedCpuMilli(Fleet.PLENTY_CPU - 1_000).and()
                .node("cpu-01").and()
                .node("dgx-02").gpus(8, H100).build();
        PlacementRequest etl = request().cpuOnly().cpuMilli(4_000).build();

        MemberPlacement p = new MemberSearch(FLAT).find(view, etl, null, -1);

        assertThat(p.nodeId()).isEqualTo("cpu-01");
        assertThat(p.gpus()).isEmpty();
        assertThat(new MemberSearch(FLAT).find(view, request().cpuOnly().cpuMilli(Fleet.PLENTY_CPU + 1).build(), null, -1))
                .isNull();
    }

    @ParameterizedTest(name = "{0} GPUs")
    @ValueSource(ints = {9, 64})
    void moreWholeGpusThanAnyNodeHasFitNowhere(int gpus) {
        CapacityView view = Fleet.of().nodes("dgx-", 3, 8, H100).build();

        assertThat(new MemberSearch(FLAT).find(view, request().gpus(gpus).build(), null, -1)).isNull();
        assertThat(new MemberSearch(FLAT).find(view, request().gpus(8).build(), null, -1).nodeId()).isEqualTo("dgx-0");
    }

    @Test
    void aRequiredLabelNoCardCarriesRulesOutEveryNodeUnderLabel() {
        CapacityView view = Fleet.of().node("dgx-01")
                .gpu(new GpuSpec("dgx-01/gpu0", H100, 81_920, null, true, null, 0, null, null, Set.of("training-fit")))
                .build();
        MemberSearch search = new MemberSearch(FLAT);
        PlacementRequest unknown = request().requires("training-fit", "no-such-label").build();

        assertThat(search.find(view, request().requires("training-fit").build(), null, -1)).isNotNull();
        assertThat(search.find(view, unknown, null, -1)).isNull();
        assertThat(search.firstFailure(view, unknown, 0, -1)).isEqualTo(Constraint.LABEL);
    }

    @Test
    void aNodeIsBlamedOnTheFirstCheckItFailsInTheConstraintsOrder() {
        CapacityView view = Fleet.of()
                .node("t4-01").gpus(4, T4, 16_384, null).pool("training").usedCpuMilli(Fleet.PLENTY_CPU).and()
                .node("a100p-01").gpus(4, A100_PCIE, 40_960, null).pool("training").and()
                .node("h100-01").gpus(2, H100, 81_920, null).used(0, 1000).pool("training").and()
                .node("h100-02").gpus(4, H100, 81_920, null).pool("training").usedCpuMilli(Fleet.PLENTY_CPU - 1_000)
                .usedMemoryMib(Fleet.PLENTY_MEMORY).and()
                .node("h100-03").gpus(4, H100, 81_920, null).pool("training").usedMemoryMib(Fleet.PLENTY_MEMORY).and()
                .node("h100-04").gpus(4, H100, 81_920, null).pool("inference").and()
                .node("h100-05").gpus(4, H100, 81_920, null).pool("training").unhealthy(0).unhealthy(1).unhealthy(2)
                .unhealthy(3).and()
                .node("h100-06").gpus(4, H100, 81_920, null).pool("training").build();
        PlacementRequest member = request().gpus(2).pools("training").excludeModels(T4).minGpuMemoryMib(49_152)
                .cpuMilli(2_000).memoryMib(1).build();
        MemberSearch search = new MemberSearch(FLAT);
        search.prepare(view, member, null);

        Map<String, String> blamed = new java.util.LinkedHashMap<>();
        for (int n = 0; n < view.nodeCount(); n++) {
            Constraint failure = search.firstFailure(view, member, n, -1);
            blamed.put(view.nodeId(n), failure == null ? "hosts it" : failure.name());
        }

        assertThat(blamed).containsExactly(
                Map.entry("t4-01", "MODEL"),
                Map.entry("a100p-01", "GPU_MEMORY"),
                Map.entry("h100-01", "GPU_CAPACITY"),
                Map.entry("h100-02", "CPU"),
                Map.entry("h100-03", "MEMORY"),
                Map.entry("h100-04", "POOL"),
                Map.entry("h100-05", "HEALTH"),
                Map.entry("h100-06", "hosts it"));
        assertThat(search.find(view, member, null, -1).nodeId()).isEqualTo("h100-06");
    }

    // ---- a reused search against a brute-force scan of the cards, over seeded random fleets ----

    private static final String[] MODELS = {H100, A100, A100_PCIE, L40S, T4};
    private static final long[] MEMORY = {81_920, 81_920, 40_960, 49_152, 16_384};
    private static final List<String> MIG_LAYOUT = List.of("3g.40gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb");

    /** A random fleet: what was built, and the cards as they were given. */
    private record RandomFleet(CapacityView view, List<List<GpuSpec>> cards) {
    }

    private static RandomFleet randomFleet(Random r) {
        int nodes = r.nextInt(5) == 0 ? 64 + r.nextInt(10) : 1 + r.nextInt(9);
        CapacityViewBuilder b = CapacityView.builder().nodeDefaults(64_000, 524_288);
        if (r.nextBoolean()) {
            b.tieBreak(new Random(r.nextLong()));
        }
        List<List<GpuSpec>> cards = new ArrayList<>();
        for (int n = 0; n < nodes; n++) {
            String id = "node-" + n;
            NodeSpec node = b.node(id).usedCpuMilli(r.nextInt(5) * 16_000L).usedMemoryMib(r.nextInt(5) * 131_072L)
                    .rack("r" + r.nextInt(3));
            int m = r.nextInt(MODELS.length);
            String nodePool = new String[] {null, "training", "inference"}[r.nextInt(3)];
            int count = r.nextInt(6) == 0 ? 0 : 1 + r.nextInt(r.nextInt(4) == 0 ? 16 : 8);
            List<GpuSpec> specs = new ArrayList<>();
            for (int g = 0; g < count; g++) {
                int model = r.nextInt(6) == 0 ? r.nextInt(MODELS.length) : m;
                String nvlink = model <= 1 && r.nextInt(4) > 0 ? id + "-nvl" + (g * 2 / Math.max(1, count)) : null;
                String pool = r.nextInt(8) == 0 ? "inference" : nodePool;
                boolean mig = MODELS[model].equals(A100) && r.nextInt(3) == 0;
                List<String> migUsed = new ArrayList<>();
                if (mig) {
                    for (String p : MIG_LAYOUT) {
                        if (r.nextInt(3) == 0) {
                            migUsed.add(p);
                        }
                    }
                }
                Set<String> labels = switch (r.nextInt(4)) {
                    case 0 -> Set.of("training-fit");
                    case 1 -> Set.of("training-fit", "nvlink");
                    default -> Set.of();
                };
                int used = new int[] {0, 0, 0, 250, 500, 700, 1000}[r.nextInt(7)];
                GpuSpec spec = new GpuSpec(id + "/gpu" + g, MODELS[model], MEMORY[model], nvlink, r.nextInt(10) > 0,
                        pool, mig ? 0 : used, mig ? MIG_LAYOUT : null, migUsed, labels);
                specs.add(spec);
                node.gpu(spec);
            }
            cards.add(specs);
        }
        return new RandomFleet(b.build(), cards);
    }

    private static PlacementRequest randomMember(Random r) {
        PlacementRequestBuilder q = request();
        switch (r.nextInt(6)) {
            case 0 -> q.cpuOnly();
            case 1 -> q.fraction(100 * (1 + r.nextInt(9)));
            case 2 -> q.mig(new String[] {"1g.10gb", "3g.40gb", "2g.20gb"}[r.nextInt(3)]);
            default -> q.gpus(r.nextInt(8) == 0 ? 8 + r.nextInt(9) : 1 + r.nextInt(4));
        }
        switch (r.nextInt(5)) {
            case 0 -> q.models(MODELS[r.nextInt(MODELS.length)], MODELS[r.nextInt(MODELS.length)]);
            case 1 -> q.excludeModels(MODELS[r.nextInt(MODELS.length)]);
            default -> { }
        }
        switch (r.nextInt(5)) {
            case 0 -> q.pools("training");
            case 1 -> q.pools("inference", "training");
            default -> { }
        }
        switch (r.nextInt(6)) {
            case 0 -> q.requires("training-fit");
            case 1 -> q.requires("training-fit", "nvlink");
            case 2 -> q.requires(r.nextInt(4) == 0 ? "no-such-label" : "nvlink");
            default -> { }
        }
        if (r.nextInt(4) == 0) {
            q.minGpuMemoryMib(r.nextBoolean() ? 40_960 : 49_152);
        }
        return q.cpuMilli(r.nextInt(4) * 12_000L).memoryMib(r.nextInt(4) * 100_000L).build();
    }

    /** The cards of node {@code n} the member could take now, by reading the cards as given. */
    private static List<Integer> eligible(RandomFleet fleet, PlacementRequest m, int n, int nvlink) {
        CapacityView view = fleet.view();
        List<Integer> gpus = new ArrayList<>();
        if (!m.needsGpu()) {
            return gpus;
        }
        List<GpuSpec> cards = fleet.cards().get(n);
        for (int i = 0; i < cards.size(); i++) {
            GpuSpec c = cards.get(i);
            boolean inPool = c.pool() == null ? m.pools().isEmpty() : m.pools().isEmpty() || m.pools().contains(c.pool());
            boolean domain = nvlink < 0 || view.layout.nvlinkDomains[nvlink].equals(c.nvlinkDomain());
            boolean room = m.isMig()
                    ? Collections.frequency(c.migLayout(), m.migProfile()) > Collections.frequency(c.migUsed(), m.migProfile())
                    : PlacementRequest.WHOLE - c.usedMilli() >= m.milliPerGpu();
            if (c.schedulable() && c.isMig() == m.isMig() && inPool && m.allowsModel(c.model())
                    && c.labels().containsAll(m.requiredLabels()) && c.memoryMib() >= m.minGpuMemoryMib() && domain && room) {
                gpus.add(view.firstGpu(n) + i);
            }
        }
        return gpus;
    }

    private static boolean hosts(RandomFleet fleet, PlacementRequest m, int n, int nvlink) {
        CapacityView view = fleet.view();
        return view.cpuFree(n) >= m.cpuMilli() && view.memoryFree(n) >= m.memoryMib()
                && eligible(fleet, m, n, nvlink).size() >= m.gpusPerMember();
    }

    /** The brute-force answer: every node that hosts the member scored, best score then lowest rank. */
    private static MemberPlacement bruteForce(RandomFleet fleet, PlacementStrategy strategy, PlacementRequest m,
                                              long[] only, int nvlink) {
        CapacityView view = fleet.view();
        strategy.prepare(view, m);
        int best = -1;
        double bestScore = 0;
        for (int n = 0; n < view.nodeCount(); n++) {
            if (only != null && !NodeBits.get(only, n) || !hosts(fleet, m, n, nvlink)) {
                continue;
            }
            double s = strategy.score(view, candidate(view, n, eligible(fleet, m, n, nvlink)), m);
            if (best < 0 || s > bestScore || s == bestScore && view.rank(n) < view.rank(best)) {
                best = n;
                bestScore = s;
            }
        }
        if (best < 0) {
            return null;
        }
        List<Integer> gpus = eligible(fleet, m, best, nvlink);
        int[] taken;
        if (!m.needsGpu()) {
            taken = new int[0];
        } else if (m.isMig()) {
            int fullest = gpus.get(0);
            for (int g : gpus) {
                if (view.freeMilli(g) < view.freeMilli(fullest)) {
                    fullest = g;
                }
            }
            taken = new int[] {fullest};
        } else if (m.isFractional()) {
            taken = new int[] {gpus.get(strategy.chooseSharedGpu(view, candidate(view, best, gpus), m))};
        } else {
            taken = gpus.subList(0, m.gpusPerMember()).stream().mapToInt(Integer::intValue).toArray();
        }
        return new MemberPlacement(best, view.nodeId(best), taken, m.milliPerGpu(), m.migProfile(), m.cpuMilli(),
                m.memoryMib());
    }

    private static Candidate candidate(CapacityView view, int node, List<Integer> gpus) {
        Candidate c = new Candidate(Math.max(1, gpus.size()));
        c.node = node;
        c.count = gpus.size();
        for (int i = 0; i < gpus.size(); i++) {
            c.gpus[i] = gpus.get(i);
        }
        return c;
    }

    /** Many ties (free whole GPUs, CPU in steps): a state-only score, so the search memoises it. */
    private static final PlacementStrategy COARSE_STATE_ONLY = scoring("coarse", true,
            (view, c) -> view.freeTotal(c.node()) / 1000 + view.cpuFree(c.node()) / 32_000);

    @ParameterizedTest(name = "strategy {0}")
    @ValueSource(strings = {"bestfit", "coarse-state-only", "flat"})
    void aReusedSearchFindsWhatABruteForceScanOfTheCardsFinds(String name) {
        PlacementStrategy strategy = switch (name) {
            case "bestfit" -> new BestFitStrategy();
            case "coarse-state-only" -> COARSE_STATE_ONLY;
            default -> FLAT;
        };
        MemberSearch search = new MemberSearch(strategy);
        Random r = new Random(20_260_105L + name.hashCode());
        int placed = 0;
        int none = 0;
        for (int fleets = 0; fleets < 150; fleets++) {
            RandomFleet fleet = randomFleet(r);
            CapacityView view = fleet.view();
            for (int asked = 0; asked < 20; asked++) {
                PlacementRequest m = randomMember(r);
                long[] only = null;
                if (r.nextInt(3) == 0) {
                    only = new long[NodeBits.words(view.nodeCount())];
                    for (int n = 0; n < view.nodeCount(); n++) {
                        NodeBits.set(only, n, r.nextBoolean());
                    }
                }
                int nvlink = view.layout.nvlinkDomains.length > 0 && r.nextInt(4) == 0
                        ? r.nextInt(view.layout.nvlinkDomains.length) : -1;

                MemberPlacement found = search.find(view, m, only, nvlink);
                MemberPlacement expected = bruteForce(fleet, strategy, m, only, nvlink);

                assertThat(found).as("fleet %d, %s, nvlink %d", fleets, m, nvlink).isEqualTo(expected);
                if (found != null) {
                    placed++;
                } else {
                    none++;
                }
            }
        }
        assertThat(placed).as("placements compared").isGreaterThan(500);
        assertThat(none).as("no-fits compared").isGreaterThan(500);
    }

    @Test
    void aNodeHasAFirstFailingConstraintExactlyWhenItCannotHostTheMember() {
        MemberSearch search = new MemberSearch(FLAT);
        Random r = new Random(42);
        Map<Constraint, Integer> seen = new java.util.EnumMap<>(Constraint.class);
        int hostable = 0;
        for (int fleets = 0; fleets < 150; fleets++) {
            RandomFleet fleet = randomFleet(r);
            CapacityView view = fleet.view();
            for (int asked = 0; asked < 10; asked++) {
                PlacementRequest m = randomMember(r);
                int nvlink = view.layout.nvlinkDomains.length > 0 && r.nextInt(4) == 0
                        ? r.nextInt(view.layout.nvlinkDomains.length) : -1;
                search.prepare(view, m, null);
                for (int n = 0; n < view.nodeCount(); n++) {
                    Constraint failure = search.firstFailure(view, m, n, nvlink);
                    boolean hosts = hosts(fleet, m, n, nvlink);

                    assertThat(failure == null).as("fleet %d node %d, %s", fleets, n, m).isEqualTo(hosts);
                    assertThat(search.collect(view, m, n, nvlink)).isEqualTo(hosts);
                    if (failure == null) {
                        hostable++;
                    } else {
                        seen.merge(failure, 1, Integer::sum);
                    }
                }
            }
        }
        assertThat(hostable).isGreaterThan(1_000);
        assertThat(seen.keySet()).containsExactlyInAnyOrder(Constraint.POOL, Constraint.HEALTH, Constraint.MODEL,
                Constraint.LABEL, Constraint.GPU_MEMORY, Constraint.GPU_CAPACITY, Constraint.CPU, Constraint.MEMORY);
    }

    // ---- memoised scores ----

    /** The same strategy, scored node by node (no memo). */
    private static PlacementStrategy unmemoised(PlacementStrategy s) {
        return new PlacementStrategy() {
            @Override
            public String name() {
                return s.name();
            }

            @Override
            public void prepare(CapacityView view, PlacementRequest member) {
                s.prepare(view, member);
            }

            @Override
            public double score(CapacityView view, Candidate candidate, PlacementRequest member) {
                return s.score(view, candidate, member);
            }

            @Override
            public int chooseSharedGpu(CapacityView view, Candidate candidate, PlacementRequest member) {
                return s.chooseSharedGpu(view, candidate, member);
            }
        };
    }

    private static final WorkloadMix FRACTIONS = WorkloadMix.of(Map.of(
            new TaskShape(0, 0, 1, 600, Set.of()), 5L,
            new TaskShape(0, 0, 1, 300, Set.of()), 3L,
            new TaskShape(0, 0, 2, 1000, Set.of()), 2L), 1.0);

    @Test
    void nodesInTheSameStateAreScoredOnceAndTheWinnerIsTheSameAsScoringEach() {
        CapacityViewBuilder b = CapacityView.builder().nodeDefaults(Fleet.PLENTY_CPU, Fleet.PLENTY_MEMORY)
                .tieBreak(new Random(3));
        for (int i = 0; i < 40; i++) {
            NodeSpec node = b.node("l40s-" + i).gpus(4, L40S);
            node.used(i % 4, 100 * (i % 7)).used((i + 1) % 4, i % 3 == 0 ? 1000 : 0);
        }
        CapacityView view = b.build();
        int[] calls = new int[1];
        FgdStrategy fgd = new FgdStrategy(WorkloadEstimate.fixed(FRACTIONS));
        PlacementStrategy counted = new PlacementStrategy() {
            @Override
            public String name() {
                return "counted";
            }

            @Override
            public void prepare(CapacityView v, PlacementRequest m) {
                fgd.prepare(v, m);
            }

            @Override
            public double score(CapacityView v, Candidate c, PlacementRequest m) {
                calls[0]++;
                return fgd.score(v, c, m);
            }

            @Override
            public boolean scoresNodeStateOnly() {
                return true;
            }
        };
        PlacementRequest twoGpus = request().gpus(2).build();

        MemberPlacement memoised = new MemberSearch(counted).find(view, twoGpus, null, -1);
        MemberPlacement each = new MemberSearch(unmemoised(new FgdStrategy(WorkloadEstimate.fixed(FRACTIONS))))
                .find(view, twoGpus, null, -1);

        // 14 states: gpu i%4 with 100·(i%7) used, and gpu (i+1)%4 full when 3 divides i, or not
        assertThat(memoised).isEqualTo(each);
        assertThat(calls[0]).as("distinct node states, not 40 nodes").isEqualTo(14);
    }
}
