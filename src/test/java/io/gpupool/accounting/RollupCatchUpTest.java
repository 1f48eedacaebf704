package io.gpupool.accounting;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** How far one run of the rollup worker goes while the lease path keeps committing. */
class RollupCatchUpTest {

    /** A ledger that gains {@code perStep} entries while each step runs, with {@code backlog} pending at first. */
    private static final class SteadyLoad {
        long pending;
        final long perStep;
        final List<Integer> steps = new ArrayList<>();

        SteadyLoad(long backlog, long perStep) {
            this.pending = backlog;
            this.perStep = perStep;
        }

        long advance(int batch) {
            steps.add(batch);
            if (steps.size() > 1_000) { // a worker that never stops: fail rather than hang
                throw new AssertionError("still stepping after 1,000 steps");
            }
            long moved = Math.min(pending, batch);
            pending = pending - moved + perStep; // what the lease path committed meanwhile
            return moved;
        }
    }

    @Test
    void underASteadyLoadOneRunTakesOneStepAndLeavesWhatCameMeanwhileToTheNextRun() {
        SteadyLoad ledger = new SteadyLoad(1_700, 300);

        long passed = LedgerRollups.catchUp(ledger::advance, 100_000);

        assertThat(passed).isEqualTo(1_700);
        assertThat(ledger.steps).as("one statement, not one after another for as long as leases keep coming").hasSize(1);
        assertThat(ledger.pending).isEqualTo(300);
    }

    @Test
    void aBacklogLargerThanABatchIsAddedInWholeBatchesUntilAStepFindsLessThanOne() {
        SteadyLoad ledger = new SteadyLoad(250, 10);

        long passed = LedgerRollups.catchUp(ledger::advance, 100);

        // 250 -> 100 (160 left), 100 (70 left), 70: less than a batch, so everything there was is added
        assertThat(ledger.steps).hasSize(3);
        assertThat(passed).isEqualTo(270);
        assertThat(ledger.pending).isEqualTo(10);
    }

    @Test
    void anIdleLedgerTakesOneEmptyStep() {
        SteadyLoad ledger = new SteadyLoad(0, 0);

        assertThat(LedgerRollups.catchUp(ledger::advance, 100)).isZero();
        assertThat(ledger.steps).hasSize(1);
    }
}
