package io.gpupool.request.scheduling;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class PassBudgetTest {
    private final AtomicLong nanos = new AtomicLong(1_000);

    @Test
    void retriesMayWidenUntilThePassHasSpentItsBudgetAndTheNextPassResumesThere() {
        PassBudget budget = new PassBudget(Duration.ofMillis(250), nanos::get, 0);

        assertThat(budget.holds(0)).as("first retry").isFalse();
        nanos.addAndGet(Duration.ofMillis(249).toNanos());
        assertThat(budget.holds(1)).as("249 ms in").isFalse();
        nanos.addAndGet(Duration.ofMillis(1).toNanos());
        assertThat(budget.holds(2)).as("250 ms in").isTrue();
        assertThat(budget.holds(3)).as("and for the rest of the pass").isTrue();
        assertThat(budget.ranOutAt()).as("where the next pass resumes").isEqualTo(2);
    }

    @Test
    void thePassAfterSpendsItsBudgetFromWhereTheLastRanOutSoSearchesGoRoundTheQueue() {
        PassBudget budget = new PassBudget(Duration.ofMillis(250), nanos::get, 2);

        assertThat(budget.holds(0)).as("searched by an earlier pass").isTrue();
        assertThat(budget.holds(1)).isTrue();
        assertThat(budget.holds(2)).as("the budget starts here").isFalse();
        assertThat(budget.holds(3)).isFalse();
        assertThat(budget.ranOutAt()).as("lasted to the end: the next pass starts at the front").isEqualTo(-1);
    }

    @Test
    void theFirstRetryTheBudgetAppliesToMayWidenEvenWithNoBudgetSoTheQueueAlwaysMoves() {
        PassBudget budget = new PassBudget(Duration.ZERO, nanos::get, 0);

        assertThat(budget.holds(0)).isFalse();
        assertThat(budget.holds(1)).isTrue();
        assertThat(budget.ranOutAt()).isEqualTo(1);
    }
}
