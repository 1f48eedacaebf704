package io.gpupool.request;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class PassBudgetTest {
    private final AtomicLong nanos = new AtomicLong(1_000);

    @Test
    void retriesMayWidenUntilThePassHasSpentItsBudget() {
        PassBudget budget = new PassBudget(Duration.ofMillis(250), nanos::get);

        assertThat(budget.spentBeforeNextRetry()).as("first retry").isFalse();
        nanos.addAndGet(Duration.ofMillis(249).toNanos());
        assertThat(budget.spentBeforeNextRetry()).as("249 ms in").isFalse();
        nanos.addAndGet(Duration.ofMillis(1).toNanos());
        assertThat(budget.spentBeforeNextRetry()).as("250 ms in").isTrue();
        assertThat(budget.spentBeforeNextRetry()).as("and for the rest of the pass").isTrue();
    }

    @Test
    void theFirstRetryOfAPassMayWidenEvenWithNoBudgetSoTheQueueAlwaysMoves() {
        PassBudget budget = new PassBudget(Duration.ZERO, nanos::get);

        assertThat(budget.spentBeforeNextRetry()).isFalse();
        assertThat(budget.spentBeforeNextRetry()).isTrue();
    }
}
