package io.gpupool.policy.sandbox;

import io.gpupool.policy.sandbox.RuleBudget.Exceeded;
import io.gpupool.policy.sandbox.RuleBudget.Limits;
import io.gpupool.policy.sandbox.RuleBudget.Resource;
import io.gpupool.policy.sandbox.RuleBudget.Scope;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * What instrumented rule code meets when it calls the budget: nothing outside an evaluation, a
 * refusal once the evaluation's time, memory or array bound is spent, and the same refusal at
 * every later call. Plain calls stand in for the instrumented ones (HostileRulesTest runs real rules).
 */
class RuleBudgetTest {
    private static final Limits AMPLE = new Limits(Duration.ofMinutes(5), Long.MAX_VALUE);
    private static final Limits NO_TIME = new Limits(Duration.ZERO, Long.MAX_VALUE);

    @AfterEach
    void noScopeIsLeftOpen() {
        RuleBudget.tick(); // would throw if a spent scope were still current
    }

    private static void tickUntilChecked() {
        for (int i = 0; i < 1024; i++) {
            RuleBudget.tick();
        }
    }

    @Test
    void outsideAnEvaluationTicksAndArraysCostNothing() {
        for (int i = 0; i < 5000; i++) {
            RuleBudget.tick();
        }
        assertThat(RuleBudget.arrayLength(RuleBudget.MAX_ARRAY_LENGTH)).isEqualTo(RuleBudget.MAX_ARRAY_LENGTH);
    }

    @Test
    void anArrayLongerThanTheBoundIsRefusedEvenOutsideAnEvaluation() {
        Exceeded e = catchThrowableOfType(Exceeded.class, () -> RuleBudget.arrayLength(RuleBudget.MAX_ARRAY_LENGTH + 1));

        assertThat(e.resource()).isEqualTo(Resource.ARRAY_LENGTH);
        assertThat(e).hasMessage("asked for an array of 1000001 elements, more than 1000000");
    }

    @Test
    void anEvaluationOutOfTimeIsStoppedAtTheNextCheckNotAtEveryTick() {
        try (Scope scope = RuleBudget.open(NO_TIME)) {
            for (int i = 0; i < 1023; i++) {
                RuleBudget.tick(); // cheap: the clock is read every 1024 ticks
            }
            Exceeded e = catchThrowableOfType(Exceeded.class, RuleBudget::tick);

            assertThat(e.resource()).isEqualTo(Resource.TIME);
            assertThat(e).hasMessage("ran longer than 0 ms");
            assertThat(scope.spent()).contains(e);
        }
    }

    @Test
    void anArrayAllocationChecksTheBudgetAtOnce() {
        try (Scope scope = RuleBudget.open(NO_TIME)) {
            Exceeded e = catchThrowableOfType(Exceeded.class, () -> RuleBudget.arrayLength(1));

            assertThat(e.resource()).isEqualTo(Resource.TIME);
            assertThat(scope.spent()).contains(e);
        }
    }

    @Test
    void aSpentBudgetStaysSpentSoAHandlerThatResumesIsStoppedAtItsNextTick() {
        try (Scope scope = RuleBudget.open(AMPLE)) {
            Exceeded first = catchThrowableOfType(Exceeded.class, () -> RuleBudget.arrayLength(RuleBudget.MAX_ARRAY_LENGTH + 1));

            assertThat(scope.spent()).contains(first);
            assertThat(catchThrowableOfType(Exceeded.class, RuleBudget::tick)).isSameAs(first);
            assertThat(catchThrowableOfType(Exceeded.class, () -> RuleBudget.arrayLength(1))).isSameAs(first);
        }
    }

    @Test
    void anEvaluationWithinItsBudgetRunsOn() {
        try (Scope scope = RuleBudget.open(AMPLE)) {
            for (int i = 0; i < 10_000; i++) {
                RuleBudget.tick();
            }
            assertThat(RuleBudget.arrayLength(RuleBudget.MAX_ARRAY_LENGTH)).isEqualTo(RuleBudget.MAX_ARRAY_LENGTH);
            assertThat(scope.spent()).isEmpty();
        }
    }

    @Test
    void anEvaluationThatAllocatesMoreThanItsBudgetIsStopped() {
        try (Scope scope = RuleBudget.open(new Limits(Duration.ofMinutes(5), 1024 * 1024))) {
            byte[][] kept = new byte[8][];
            for (int i = 0; i < kept.length; i++) {
                kept[i] = new byte[512 * 1024];
            }
            Exceeded e = catchThrowableOfType(Exceeded.class, () -> RuleBudget.arrayLength(1));

            assertThat(kept[7]).hasSize(512 * 1024);
            assertThat(e.resource()).isEqualTo(Resource.MEMORY);
            assertThat(e.getMessage()).startsWith("allocated ").endsWith("MiB, more than 1 MiB");
        }
    }

    @Test
    void closingAnInnerBudgetPutsTheOuterBackAndClosingTheOuterLeavesNone() {
        try (Scope outer = RuleBudget.open(AMPLE)) {
            try (Scope inner = RuleBudget.open(NO_TIME)) {
                assertThatThrownBy(() -> RuleBudget.arrayLength(1)).isInstanceOf(Exceeded.class);
                assertThat(inner.spent()).isPresent();
            }
            assertThat(RuleBudget.arrayLength(1)).isEqualTo(1);
            assertThat(outer.spent()).isEmpty();
        }
        try (Scope later = RuleBudget.open(NO_TIME)) {
            later.close();
            tickUntilChecked(); // nothing current once the only scope closed
            assertThat(later.spent()).isEmpty();
        }
    }

    @Test
    void twoThreadsTickingInTurnEachSpendTheirOwnBudgetOnly() throws Exception {
        ticksInTurnWith(java.util.concurrent.Executors.newSingleThreadExecutor());
    }

    @Test
    void twoThreadsSharingOneRecentSlotEachSpendTheirOwnBudgetOnly() throws Exception {
        // Threads are remembered in 16 slots by id; ids are handed out in sequence, so one of the next
        // 16 threads shares this thread's slot, and each must still read its own scope only.
        long mine = Thread.currentThread().getId();
        java.util.concurrent.ExecutorService sameSlot = java.util.concurrent.Executors.newSingleThreadExecutor(task -> {
            Thread t;
            do {
                t = new Thread(task);
            } while ((t.getId() & 15) != (mine & 15));
            return t;
        });
        assertThat(sameSlot.submit(() -> Thread.currentThread().getId() & 15).get()).isEqualTo(mine & 15);
        ticksInTurnWith(sameSlot);
    }

    private static void ticksInTurnWith(java.util.concurrent.ExecutorService other) throws Exception {
        try (Scope mine = RuleBudget.open(AMPLE)) {
            // The other thread opens a budget already spent and ticks: its scope becomes the one read first.
            Scope[] theirs = new Scope[1];
            other.submit(() -> theirs[0] = RuleBudget.open(NO_TIME)).get();
            Exceeded stopped = other.submit(() -> catchThrowableOfType(Exceeded.class, RuleBudgetTest::tickUntilChecked)).get();
            assertThat(stopped).as("the other thread's own budget stops it").isNotNull();

            tickUntilChecked(); // this thread's ample budget, not the other's spent one
            assertThat(RuleBudget.arrayLength(1)).isEqualTo(1);
            assertThat(mine.spent()).isEmpty();

            // This thread's scope read last now; the other thread is still stopped by its own.
            assertThat(other.submit(() -> catchThrowableOfType(Exceeded.class, RuleBudget::tick)).get()).isSameAs(stopped);
            other.submit(() -> theirs[0].close()).get();
            other.submit(RuleBudgetTest::tickUntilChecked).get(); // nothing current there once closed
            tickUntilChecked();
            assertThat(mine.spent()).isEmpty();
        } finally {
            other.shutdownNow();
        }
        Scope afterwards = RuleBudget.open(NO_TIME);
        afterwards.close();
        tickUntilChecked(); // closed here, though it was the last made current
        assertThat(afterwards.spent()).isEmpty();
    }

    @Test
    void theOuterBudgetStaysInForceWhileAnInnerOneRuns() {
        try (Scope outer = RuleBudget.open(NO_TIME); Scope inner = RuleBudget.open(AMPLE)) {
            Exceeded e = catchThrowableOfType(Exceeded.class, () -> RuleBudget.arrayLength(1));

            assertThat(e).as("the outer evaluation's time is spent").isNotNull();
            assertThat(e.resource()).isEqualTo(Resource.TIME);
            assertThat(outer.spent()).contains(e);
        }
    }
}
