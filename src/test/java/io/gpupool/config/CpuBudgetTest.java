package io.gpupool.config;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** A background thread's CPU budget, on simulated clocks: held to its share while others keep the machine busy. */
class CpuBudgetTest {
    private static final long MS = 1_000_000L;

    /** Two cores; the others use {@code othersShare} of the machine; the thread works in 5 ms slices. */
    private static final class Machine implements CpuBudget.Clocks {
        final double othersShare;
        final boolean known;
        long wall;
        long cpu;

        Machine(double othersShare, boolean known) {
            this.othersShare = othersShare;
            this.known = known;
        }

        void work(long nanos) {
            wall += nanos;
            cpu += nanos;
        }

        @Override
        public long wallNanos() {
            return wall;
        }

        @Override
        public long cpuNanos() {
            return cpu;
        }

        @Override
        public long[] machine() {
            if (!known) {
                return null;
            }
            long all = wall * 2;
            long busy = (long) (othersShare * all) + cpu;
            return new long[] {all - Math.min(all, busy), all};
        }

        @Override
        public int cores() {
            return 2;
        }

        @Override
        public void sleep(long nanos) {
            wall += nanos;
        }
    }

    /** Works in 5 ms slices for {@code seconds} of wall time; returns the share of one core the thread used. */
    private static double run(Machine m, CpuBudget budget, int seconds) throws Exception {
        while (m.wall < seconds * 1_000 * MS) {
            m.work(5 * MS);
            budget.pace();
        }
        return m.cpu / (double) m.wall;
    }

    @Test
    void whileOthersKeepTheMachineBusyTheThreadIsHeldToItsShareOfACore() throws Exception {
        Machine busy = new Machine(0.8, true);
        CpuBudget budget = new CpuBudget(0.1, 0.25, busy);

        assertThat(run(busy, budget, 60)).isCloseTo(0.1, within(0.01));
        assertThat(budget.paced()).isTrue();
    }

    @Test
    void onANearlyIdleMachineTheThreadRunsUnpaced() throws Exception {
        Machine quiet = new Machine(0.1, true);
        CpuBudget budget = new CpuBudget(0.1, 0.25, quiet);

        assertThat(run(quiet, budget, 60)).isGreaterThan(0.99);
        assertThat(budget.sleptNanos()).isLessThan(CpuBudget.LOOK_NANOS); // paced only until its first look
    }

    @Test
    void itsOwnUseDoesNotMakeTheMachineLookBusy() throws Exception {
        Machine alone = new Machine(0.0, true); // the thread alone keeps one of two cores busy: 50 % of the machine
        CpuBudget budget = new CpuBudget(0.1, 0.25, alone);

        assertThat(run(alone, budget, 60)).isGreaterThan(0.99);
    }

    @Test
    void withoutTheMachinesFiguresTheThreadIsAlwaysPaced() throws Exception {
        Machine unknown = new Machine(0.0, false);
        CpuBudget budget = new CpuBudget(0.25, 0.25, unknown);

        assertThat(run(unknown, budget, 60)).isCloseTo(0.25, within(0.01));
    }

    @Test
    void aShareOfAWholeCoreNeverSleeps() throws Exception {
        Machine busy = new Machine(0.9, true);
        CpuBudget budget = new CpuBudget(1, 0.25, busy);

        assertThat(run(busy, budget, 10)).isEqualTo(1.0);
        assertThat(budget.sleptNanos()).isZero();
    }

    @Test
    void sharesOutsideTheirRangeAreRefused() {
        assertThatThrownBy(() -> CpuBudget.of(0, 0.25)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CpuBudget.of(1.5, 0.25)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CpuBudget.of(0.1, -0.1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theRealMachinesFiguresAreReadOnLinux() {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/stat")));

        long[] figures = new CpuBudget.SystemClocks().machine();

        assertThat(figures).hasSize(2);
        assertThat(figures[0]).isPositive().isLessThanOrEqualTo(figures[1]);
    }
}
