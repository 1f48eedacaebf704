package io.gpupool.request.scheduling;

import io.gpupool.domain.lease.UsageSample;
import io.gpupool.governance.PipelineDryRun.Input;
import io.gpupool.policy.dryrun.PipelineRun;
import io.gpupool.snapshot.PoolSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The live input given again and the runs kept on it ({@link RecalledRuns}): the same published
 * model, equal usage and a clock that moved forward by less than the window give the very input
 * back; anything else is a new input and forgets the runs. A run is given again for the same key on
 * the last live input only, shared by two dry-runs at once, and made again when it failed or one of
 * its evaluations did not complete; the six used last are kept.
 */
class RecalledRunsTest {
    private static final Duration WINDOW = Duration.ofSeconds(5);
    private static final Instant T0 = Instant.parse("2026-01-05T12:00:00Z");
    private static final Object ACTIVE_RULES = new Object();
    private static final RecalledRuns.RunKey ACTIVE = key(ACTIVE_RULES, "v41", List.of(), null);

    private final RecalledRuns recalled = new RecalledRuns(WINDOW);
    private final PoolSnapshot model = PoolSnapshot.empty();
    private final List<UsageSample> usage = List.of(
            new UsageSample("lease-train-7", T0.minusSeconds(30), 0.92, UsageSample.Source.DEVICE),
            new UsageSample("lease-notebook-3", T0.minusSeconds(10), 0.04, UsageSample.Source.HEARTBEAT));
    private final List<Runs> made = new ArrayList<>();
    private ExecutorService threads;

    @AfterEach
    void stopThreads() {
        if (threads != null) {
            threads.shutdownNow();
        }
    }

    private static RecalledRuns.RunKey key(Object rules, String version, List<?> whatIf, String resumeAt) {
        return new RecalledRuns.RunKey(rules, version, whatIf, resumeAt);
    }

    /** Makes a new run each time it is asked, and counts them. */
    private final class Runs implements Supplier<RecalledRuns.Ran> {
        final String version;
        final boolean evaluationsOk;
        int calls;

        Runs(String version, boolean evaluationsOk) {
            this.version = version;
            this.evaluationsOk = evaluationsOk;
            made.add(this);
        }

        @Override
        public RecalledRuns.Ran get() {
            calls++;
            return new RecalledRuns.Ran(new PipelineRun(version, T0, T0.plus(Duration.ofMinutes(10)), Map.of(),
                    Map.of(), null, null), evaluationsOk);
        }
    }

    private Runs runs() {
        return new Runs("v41", true);
    }

    @Test
    void theSameModelWithEqualUsageWithinTheWindowGivesTheVeryInputBackAsOfItsInstant() {
        Input first = recalled.live(model, usage, T0);

        Input again = recalled.live(model, new ArrayList<>(usage), T0.plus(WINDOW).minusMillis(1));

        assertThat(again).isSameAs(first);
        assertThat(again.now()).isEqualTo(T0);
    }

    @Test
    void theClockMovingTheWholeWindowGivesANewInputAtTheNewInstant() {
        Input first = recalled.live(model, usage, T0);

        Input later = recalled.live(model, usage, T0.plus(WINDOW));

        assertThat(later).isNotSameAs(first);
        assertThat(later.now()).isEqualTo(T0.plus(WINDOW));
        assertThat(recalled.live(model, usage, T0.plus(WINDOW).plusMillis(1))).as("the window counts from the new one")
                .isSameAs(later);
    }

    @Test
    void aClockThatWentBackGivesANewInput() {
        Input first = recalled.live(model, usage, T0);

        Input earlier = recalled.live(model, usage, T0.minusMillis(1));

        assertThat(earlier).isNotSameAs(first);
        assertThat(earlier.now()).isEqualTo(T0.minusMillis(1));
    }

    @Test
    void anotherPublishedModelEvenWithTheSameContentGivesANewInput() {
        Input first = recalled.live(model, usage, T0);

        Input republished = recalled.live(PoolSnapshot.empty(), usage, T0);

        assertThat(republished).isNotSameAs(first);
        assertThat(republished.fleet()).isNotSameAs(model);
    }

    @Test
    void usageThatChangedGivesANewInput() {
        Input first = recalled.live(model, usage, T0);
        List<UsageSample> idle = List.of(usage.get(0),
                new UsageSample("lease-notebook-3", T0.minusSeconds(10), 0.0, UsageSample.Source.HEARTBEAT));

        assertThat(recalled.live(model, idle, T0.plusSeconds(1))).isNotSameAs(first);
        assertThat(recalled.live(model, usage.subList(0, 1), T0.plusSeconds(1))).isNotSameAs(first);
    }

    @Test
    void aRunOnTheLiveInputIsGivenAgainForTheSameKeyAndMadeAnewForAnyOtherPartOfIt() {
        Input live = recalled.live(model, usage, T0);
        Runs active = runs();
        Runs other = runs();

        PipelineRun first = recalled.recallOrRun(ACTIVE, live, active);
        PipelineRun again = recalled.recallOrRun(key(ACTIVE_RULES, "v41", List.of(), null), live, active);
        recalled.recallOrRun(key(new Object(), "v41", List.of(), null), live, other);
        recalled.recallOrRun(key(ACTIVE_RULES, "candidate", List.of(), null), live, other);
        recalled.recallOrRun(key(ACTIVE_RULES, "v41", List.of("what-if 8 × H100-SXM-80G"), null), live, other);
        recalled.recallOrRun(key(ACTIVE_RULES, "v41", List.of(), "req-0042"), live, other);

        assertThat(again).isSameAs(first);
        assertThat(active.calls).isEqualTo(1);
        assertThat(other.calls).as("other rules, version, what-if requests, search resume point").isEqualTo(4);
    }

    @Test
    void aNewLiveInputForgetsTheRunsKeptOnTheOldOneAndRunsOnTheOldOneAreNotKept() {
        Input old = recalled.live(model, usage, T0);
        Runs runs = runs();
        recalled.recallOrRun(ACTIVE, old, runs);

        Input fresh = recalled.live(model, usage, T0.plus(WINDOW));
        recalled.recallOrRun(ACTIVE, fresh, runs);
        recalled.recallOrRun(ACTIVE, old, runs);
        recalled.recallOrRun(ACTIVE, old, runs);
        recalled.recallOrRun(ACTIVE, fresh, runs);
        recalled.live(model, usage, T0.plus(WINDOW).plusSeconds(1));
        recalled.recallOrRun(ACTIVE, fresh, runs);

        assertThat(runs.calls).as("old, fresh, old twice, then fresh once more while kept").isEqualTo(4);
    }

    @Test
    void aScenarioInputIsNeverKept() {
        recalled.live(model, usage, T0);
        Input scenario = new Input(model, usage, T0);
        Runs runs = runs();

        recalled.recallOrRun(ACTIVE, scenario, runs);
        recalled.recallOrRun(ACTIVE, scenario, runs);

        assertThat(runs.calls).isEqualTo(2);
    }

    @Test
    void aRunWithAnEvaluationThatDidNotCompleteIsMadeAgainUntilOneCompletes() {
        Input live = recalled.live(model, usage, T0);
        Runs stopped = new Runs("v41", false);
        Runs completed = runs();

        PipelineRun first = recalled.recallOrRun(ACTIVE, live, stopped);
        PipelineRun second = recalled.recallOrRun(ACTIVE, live, stopped);
        PipelineRun third = recalled.recallOrRun(ACTIVE, live, completed);
        PipelineRun fourth = recalled.recallOrRun(ACTIVE, live, completed);

        assertThat(stopped.calls).isEqualTo(2);
        assertThat(second).isNotSameAs(first);
        assertThat(completed.calls).isEqualTo(1);
        assertThat(fourth).isSameAs(third);
    }

    @Test
    void aRunThatFailedIsNotKeptAndItsFailureReachesTheCaller() {
        Input live = recalled.live(model, usage, T0);
        IllegalStateException broken = new IllegalStateException("rule 'reclaim-idle' threw");
        Runs runs = runs();

        assertThatThrownBy(() -> recalled.recallOrRun(ACTIVE, live, () -> {
            throw broken;
        })).isSameAs(broken);
        recalled.recallOrRun(ACTIVE, live, runs);
        recalled.recallOrRun(ACTIVE, live, runs);

        assertThat(runs.calls).isEqualTo(1);
    }

    @Test
    void theSixRunsUsedLastAreKeptAndTheLeastRecentlyUsedIsForgotten() {
        Input live = recalled.live(model, usage, T0);
        List<Runs> perKey = new ArrayList<>();
        List<RecalledRuns.RunKey> keys = new ArrayList<>();
        for (int i = 0; i <= RecalledRuns.KEPT_RUNS; i++) {
            keys.add(key(ACTIVE_RULES, "candidate-" + i, List.of(), null));
            perKey.add(runs());
        }
        for (int i = 0; i < RecalledRuns.KEPT_RUNS; i++) {
            recalled.recallOrRun(keys.get(i), live, perKey.get(i));
        }

        recalled.recallOrRun(keys.get(0), live, perKey.get(0)); // used again: now the most recent
        recalled.recallOrRun(keys.get(6), live, perKey.get(6)); // a seventh: candidate-1 goes
        recalled.recallOrRun(keys.get(0), live, perKey.get(0));
        recalled.recallOrRun(keys.get(2), live, perKey.get(2));
        recalled.recallOrRun(keys.get(1), live, perKey.get(1));

        assertThat(perKey).extracting(r -> r.calls).containsExactly(1, 2, 1, 1, 1, 1, 1);
    }

    @Test
    void aDryRunAskingWhileTheSameRunIsBeingMadeWaitsForItInsteadOfMakingAnother() throws Exception {
        Input live = recalled.live(model, usage, T0);
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Runs slow = runs();
        Runs second = runs();
        threads = Executors.newSingleThreadExecutor();

        CompletableFuture<PipelineRun> a = CompletableFuture.supplyAsync(() -> recalled.recallOrRun(ACTIVE, live, () -> {
            running.countDown();
            await(release);
            return slow.get();
        }), threads);
        running.await(30, TimeUnit.SECONDS);
        CompletableFuture<PipelineRun> b = new CompletableFuture<>();
        Thread waiting = new Thread(() -> ask(b, live, second));
        waiting.start();
        untilParked(waiting);
        release.countDown();

        assertThat(b.get(30, TimeUnit.SECONDS)).isSameAs(a.get(30, TimeUnit.SECONDS));
        assertThat(slow.calls).isEqualTo(1);
        assertThat(second.calls).isZero();
    }

    @Test
    void aDryRunWaitingOnARunThatFailsMakesItsOwnRun() throws Exception {
        Input live = recalled.live(model, usage, T0);
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Runs second = runs();
        threads = Executors.newSingleThreadExecutor();

        CompletableFuture<PipelineRun> a = CompletableFuture.supplyAsync(() -> recalled.recallOrRun(ACTIVE, live, () -> {
            running.countDown();
            await(release);
            throw new IllegalStateException("session disposed");
        }), threads);
        running.await(30, TimeUnit.SECONDS);
        CompletableFuture<PipelineRun> b = new CompletableFuture<>();
        Thread waiting = new Thread(() -> ask(b, live, second));
        waiting.start();
        untilParked(waiting);
        release.countDown();

        assertThat(b.get(30, TimeUnit.SECONDS).policyVersion()).isEqualTo("v41");
        assertThat(second.calls).isEqualTo(1);
        assertThatThrownBy(() -> a.get(30, TimeUnit.SECONDS)).hasRootCauseMessage("session disposed");
    }

    private void ask(CompletableFuture<PipelineRun> answer, Input live, Runs runs) {
        try {
            answer.complete(recalled.recallOrRun(ACTIVE, live, runs));
        } catch (RuntimeException e) {
            answer.completeExceptionally(e);
        }
    }

    /** Until the thread waits on the run being made (it parks nowhere else). */
    private static void untilParked(Thread thread) {
        while (thread.getState() != Thread.State.WAITING && thread.isAlive()) {
            Thread.onSpinWait();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
