package io.gpupool.request.scheduling;

import org.junit.jupiter.api.Test;

import io.gpupool.domain.request.GpuRequest;

import java.time.Duration;
import java.util.List;
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

    @Test
    void passesSharingAResumePointSpendTheirBudgetsRoundTheQueueAndBackToTheFront() {
        List<GpuRequest> queue = List.of(queued("r0"), queued("r1"), queued("r2"));
        PassBudget.Resume resume = new PassBudget.Resume(null);

        PassBudget first = resume.start(Duration.ZERO, queue);
        assertThat(first.holds(0)).as("the front's search, first pass").isFalse();
        assertThat(first.holds(1)).isTrue();
        first.holds(2);
        resume.ended(first, queue);
        assertThat(resume.at()).isEqualTo("r1");
        assertThat(resume.lastPassSpannedTheQueue()).isFalse();

        PassBudget second = resume.start(Duration.ZERO, queue);
        assertThat(second.holds(0)).as("searched by the first pass").isTrue();
        assertThat(second.holds(1)).as("where the first ran out").isFalse();
        assertThat(second.holds(2)).isTrue();
        resume.ended(second, queue);
        assertThat(resume.at()).isEqualTo("r2");

        PassBudget third = resume.start(Duration.ofHours(1), queue);
        third.holds(0);
        third.holds(1);
        assertThat(third.holds(2)).isFalse();
        resume.ended(third, queue);
        assertThat(resume.at()).as("lasted to the end: the next starts at the front").isNull();
        assertThat(resume.lastPassSpannedTheQueue()).as("it started at r2, not the front").isFalse();
    }

    @Test
    void aResumePointWhoseRequestLeftTheQueueStartsAtTheFront() {
        PassBudget.Resume resume = new PassBudget.Resume("gone");
        PassBudget budget = resume.start(Duration.ofHours(1), List.of(queued("r0"), queued("r1")));

        assertThat(budget.holds(0)).isFalse();
        budget.holds(1);
        resume.ended(budget, List.of(queued("r0"), queued("r1")));
        assertThat(resume.lastPassSpannedTheQueue()).isTrue();
    }

    @Test
    void aCopyOfTheLiveResumePointMovesOnItsOwn() {
        PassBudget.Resume live = new PassBudget.Resume("r1");
        PassBudget.Resume dryRuns = new PassBudget.Resume(live.at());
        List<GpuRequest> queue = List.of(queued("r0"), queued("r1"), queued("r2"));

        PassBudget budget = dryRuns.start(Duration.ZERO, queue);
        budget.holds(0);
        budget.holds(1);
        budget.holds(2);
        dryRuns.ended(budget, queue);

        assertThat(dryRuns.at()).isEqualTo("r2");
        assertThat(live.at()).isEqualTo("r1");
    }

    private static GpuRequest queued(String id) {
        return io.gpupool.testing.GpuRequests.request(id).build();
    }
}
