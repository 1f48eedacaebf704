package io.gpupool.store;

import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the caller of one queued write is answered ({@link PendingWrite}): nothing before its batch
 * commits or fails, its own refusal whatever the batch did, and the batch's failure otherwise;
 * exactly once, with the exception it was given (not wrapped).
 */
class PendingWriteTest {
    private static final PoolSnapshot MODEL = PoolSnapshot.empty();

    private static PendingWrite<String> write() {
        return new PendingWrite<>((before, changes) -> "done");
    }

    @Test
    void aStagedResultIsAnsweredOnlyOnceTheBatchCommits() {
        PendingWrite<String> w = write();
        RowBuffer rows = new RowBuffer();
        w.stage("tenant-speech", List.of(rows), MODEL);

        assertThat(w.isDone()).isFalse();
        assertThatThrownBy(w::outcome).isInstanceOf(IllegalStateException.class).hasMessage("not answered yet");
        assertThat(w.stagedRows()).containsExactly(rows);
        assertThat(w.stagedAfter()).isSameAs(MODEL);

        w.complete();

        assertThat(w.isDone()).isTrue();
        assertThat(w.outcome()).isEqualTo("tenant-speech");
    }

    @Test
    void aRefusedWriteStagesNoRowsAndItsCallerGetsItsOwnRefusalAfterTheCommit() {
        PendingWrite<String> w = write();
        ProblemException refusal = ProblemException.conflict("quota exceeded");
        w.stage("first try", List.of(new RowBuffer()), MODEL);

        w.stageFailure(refusal, MODEL);
        w.complete();

        assertThat(w.stagedRows()).isEmpty();
        assertThatThrownBy(w::outcome).isSameAs(refusal);
    }

    @Test
    void aFailedBatchAnswersItsWritesWithTheBatchsFailure() {
        PendingWrite<String> w = write();
        IllegalStateException commitFailed = new IllegalStateException("connection reset during COMMIT");
        w.stage("tenant-speech", List.of(new RowBuffer()), MODEL);

        w.fail(commitFailed);

        assertThatThrownBy(w::outcome).isSameAs(commitFailed);
    }

    @Test
    void aWriteRefusedBeforeItsBatchFailedKeepsItsOwnRefusal() {
        PendingWrite<String> w = write();
        ProblemException refusal = ProblemException.conflict("lease already released");
        w.stageFailure(refusal, MODEL);

        w.fail(new IllegalStateException("connection reset during COMMIT"));

        assertThatThrownBy(w::outcome).isSameAs(refusal);
    }

    @Test
    void anAbandonedWriteGetsTheReasonWhateverItStaged() {
        PendingWrite<String> w = write();
        ProblemException retry = ProblemException.conflict("ran on a change the database refused");
        w.stage("tenant-speech", List.of(new RowBuffer()), MODEL);

        w.abandon(retry);

        assertThatThrownBy(w::outcome).isSameAs(retry);
    }

    @Test
    void aWriteIsAnsweredOnlyOnce() {
        PendingWrite<String> w = write();
        w.complete();

        assertThatThrownBy(w::complete).isInstanceOf(IllegalStateException.class).hasMessageContaining("once");
        assertThatThrownBy(() -> w.fail(new RuntimeException())).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> w.abandon(new RuntimeException())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aCheckedExceptionIsRethrownUnwrapped() {
        PendingWrite<String> w = write();
        Exception io = new java.io.IOException("disk full");
        w.stageFailure(io, MODEL);
        w.complete();

        assertThatThrownBy(w::outcome).isSameAs(io);
    }

    @Test
    void aWriteInOneStepHasNoNextStepAndATwoStepWriteMakesItsSecondFromTheFirstsResult() {
        Mutation<Integer> count = (before, changes) -> 3;
        PendingWrite<String> twoSteps = new PendingWrite<>(count, n -> (before, changes) -> "x".repeat(n));

        assertThat(write().then("anything")).isNull();
        assertThat(twoSteps.mutation()).isSameAs(count);
        assertThat(twoSteps.then(3).apply(MODEL, Changes.uncommitted(MODEL))).isEqualTo("xxx");
    }

    @Test
    void aWaitingCallerWakesWhenAnswered() throws Exception {
        PendingWrite<String> w = write();
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> w.awaitDoneOrTurn(10_000));

        Thread.sleep(50);
        assertThat(waiting).isNotDone();
        w.stage("ok", List.of(), MODEL);
        w.complete();

        waiting.get(5, TimeUnit.SECONDS);
        assertThat(w.outcome()).isEqualTo("ok");
    }

    @Test
    void aWaitingCallerWakesWhenOfferedTheTurnToLeadAndTheTurnIsUsedUp() throws Exception {
        PendingWrite<String> w = write();
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> w.awaitDoneOrTurn(10_000));

        Thread.sleep(50);
        w.offerTurn();
        waiting.get(5, TimeUnit.SECONDS);

        assertThat(w.isDone()).isFalse();
        long started = System.nanoTime();
        w.awaitDoneOrTurn(100); // the turn was taken: this wait runs to its timeout
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isGreaterThanOrEqualTo(90);
    }

    @Test
    void waitingIsNotInterruptibleButTheInterruptIsKeptForTheCaller() throws Exception {
        PendingWrite<String> w = write();
        CompletableFuture<Boolean> interruptedAfter = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            w.awaitDoneOrTurn(10_000);
            interruptedAfter.complete(Thread.currentThread().isInterrupted());
        });
        caller.start();
        Thread.sleep(50);

        caller.interrupt();
        Thread.sleep(50);
        assertThat(interruptedAfter).as("still waiting after the interrupt").isNotDone();
        w.complete();

        assertThat(interruptedAfter.get(5, TimeUnit.SECONDS)).isTrue();
    }
}
