package io.gpupool.replay;

import io.gpupool.allocator.strategy.StrategyRegistry;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ReplayRunTest {
    private static final List<TraceNode> ONE_GPU = List.of(new TraceNode("node", 8000, 16384, 1, "T4"));

    private static RunResult replay(List<TracePod> pods, String strategy) {
        return new ReplayRun(ONE_GPU, pods, "test", StrategyRegistry.standard()).run(strategy, 42);
    }

    @Test
    void aPodThatFitsNowhereIsDroppedButStillCountsAsArrived() {
        List<TracePod> pods = List.of(new TracePod("a", 1000, 1024, 1, 600, Set.of()),
                new TracePod("b", 1000, 1024, 1, 600, Set.of()));

        RunResult r = replay(pods, "bestfit");

        assertThat(r.pods()).isEqualTo(2);
        assertThat(r.failedPods()).isEqualTo(1);
        assertThat(r.unallocatedAt(60)).isCloseTo(40, within(1e-9));
        assertThat(r.unallocatedAt(120)).isCloseTo(40, within(1e-9));
    }

    @Test
    void runsWithALearnedMixAreLabelledSoTheyAreNeverMistakenForOracleRuns() {
        List<TracePod> pods = List.of(new TracePod("a", 1000, 1024, 1, 300, Set.of()));

        RunResult learned = new ReplayRun(ONE_GPU, pods, "test", StrategyRegistry.standard(), true).run("fgd-plus", 1);
        RunResult baseline = new ReplayRun(ONE_GPU, pods, "test", StrategyRegistry.standard(), true).run("bestfit", 1);

        assertThat(learned.strategy()).isEqualTo("fgd-plus/learned");
        assertThat(baseline.strategy()).isEqualTo("bestfit");
    }

    @Test
    void cpuMemoryAndModelConstraintsAreEnforced() {
        List<TracePod> pods = List.of(new TracePod("too-much-cpu", 9000, 1024, 1, 100, Set.of()),
                new TracePod("too-much-memory", 1000, 20000, 1, 100, Set.of()),
                new TracePod("wrong-model", 1000, 1024, 1, 100, Set.of("V100M32")),
                new TracePod("fits", 1000, 1024, 1, 100, Set.of("T4")));

        RunResult r = replay(pods, "fgd-plus");

        assertThat(r.failedPods()).isGreaterThanOrEqualTo(3);
        assertThat(r.pods() - r.failedPods()).isGreaterThanOrEqualTo(1);
    }
}
