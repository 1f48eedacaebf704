package io.gpupool.store;

import io.gpupool.store.row.LeaseRepository;
import io.gpupool.store.row.GpuRequestRepository;
import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.testing.GpuRequests;
import io.gpupool.testing.Leases;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.problem.ProblemException;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.testing.DatabaseTest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A batch of several writes holds their rows (requests, leases, decision log) and writes them in
 * one statement per table and kind at the commit. That must be invisible to the mutations: each
 * still reads what earlier ones wrote, a refused write leaves no row, and a row the database refuses
 * fails the write that made it; the writes before it commit, and those after it, which ran on its
 * change, answer 503 to be retried.
 */
@DatabaseTest
class BufferedBatchTest extends WriterHarnessTest {
    private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    private GpuRequestRepository requestRows;
    private LeaseRepository leaseRows;

    @BeforeAll
    void start() {
        requestRows = harness.ctx.getBean(GpuRequestRepository.class);
        leaseRows = harness.ctx.getBean(LeaseRepository.class);
        harness.freshWriter();
        harness.workingSet.write((before, changes) -> {
            changes.put(new Tenant("buffered", "buffered", null, null))
                    .put(new Pool("buffered-pool", "buffered-pool", PoolTier.DEV_SHARED, "spread", true, null));
            return null;
        });
        harness.stopThreads();
    }

    @Test
    void aRefusedWriteLeavesNoRowAndTheRestOfItsBatchCommitsWithoutAReplay() throws Exception {
        ProblemException refusal = ProblemException.conflict("refused after buffering a request and a lease");
        long batchesBefore = harness.workingSet.committedBatches();

        List<CompletableFuture<String>> answers = harness.runAsOneBatch(List.of(
                submit("kept-1", null),
                (before, changes) -> {
                    submit("dropped", null).apply(before, changes);
                    changes.insert(lease("dropped-lease", "dropped"));
                    throw refusal;
                },
                submit("kept-2", null)));

        assertThat(answers.get(0).get(10, TimeUnit.SECONDS)).isEqualTo("kept-1");
        assertThat(WriterHarness.failureOf(answers.get(1))).isSameAs(refusal);
        assertThat(answers.get(2).get(10, TimeUnit.SECONDS)).isEqualTo("kept-2");
        assertThat(requestRows.existsById("kept-1")).isTrue();
        assertThat(requestRows.existsById("kept-2")).isTrue();
        assertThat(requestRows.existsById("dropped")).isFalse();
        assertThat(leaseRows.existsById("dropped-lease")).isFalse();
        assertThat(harness.workingSet.committedBatches() - batchesBefore).as("the blocker's batch and this one")
                .isEqualTo(2);
    }

    @Test
    void aWriteSeesTheRequestsAndLeasesAnEarlierWriteOfItsBatchBuffered() throws Exception {
        List<CompletableFuture<String>> answers = harness.runAsOneBatch(List.of(
                (before, changes) -> {
                    submit("seen", "key-seen").apply(before, changes);
                    changes.insert(lease("seen-lease", "seen"));
                    return "written";
                },
                (before, changes) -> {
                    GpuRequest byId = changes.findRequest("seen").orElseThrow();
                    GpuRequest byKey = changes.findRequest("buffered", "key-seen").orElseThrow();
                    Lease lease = changes.findLease("seen-lease").orElseThrow();
                    changes.update(byId.with(RequestState.PLACED, 0, lease.id(), null, NOW));
                    return byKey.id() + " " + lease.state();
                }));

        assertThat(answers.get(0).get(10, TimeUnit.SECONDS)).isEqualTo("written");
        assertThat(answers.get(1).get(10, TimeUnit.SECONDS)).isEqualTo("seen ACTIVE");
        assertThat(requestRows.findById("seen").orElseThrow().state()).as("the update after the insert")
                .isEqualTo(RequestState.PLACED.name());
    }

    @Test
    void aRowTheDatabaseRefusesAtTheCommitFailsTheWriteThatMadeItAndTheWritesAfterItAreRetriable() throws Exception {
        harness.workingSet.write(submit("first-with-key", "taken"));

        List<CompletableFuture<String>> answers = harness.runAsOneBatch(List.of(
                submit("before-duplicate", null),
                submit("duplicate-key", "taken"), // unique (tenant, idempotency key): refused by the database only
                submit("after-duplicate", null)));

        assertThat(answers.get(0).get(10, TimeUnit.SECONDS)).isEqualTo("before-duplicate");
        assertThat(WriterHarness.failureOf(answers.get(1))).isNotInstanceOf(ProblemException.class);
        assertThat(WriterHarness.failureOf(answers.get(2))).as("ran on the refused write's change")
                .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.kind()).isEqualTo(ProblemException.Kind.UNAVAILABLE));
        assertThat(requestRows.existsById("before-duplicate")).isTrue();
        assertThat(requestRows.existsById("duplicate-key")).isFalse();
        assertThat(requestRows.existsById("after-duplicate")).isFalse();
        assertThat(harness.workingSet.current().queued()).containsKey("before-duplicate")
                .doesNotContainKeys("duplicate-key", "after-duplicate");

        harness.workingSet.write(submit("after-duplicate", null)); // the retry the 503 asks for
        assertThat(requestRows.existsById("after-duplicate")).isTrue();
    }

    @Test
    void aWriteThatFailsOtherwiseThanByRefusingFailsAloneAndTheOthersStillShareOneCommit() throws Exception {
        IllegalStateException bug = new IllegalStateException("a bug, not a refusal");
        long batchesBefore = harness.workingSet.committedBatches();

        List<CompletableFuture<String>> answers = harness.runAsOneBatch(List.of(
                submit("part-1", null), submit("part-2", null),
                (before, changes) -> {
                    submit("broken", null).apply(before, changes);
                    throw bug;
                },
                submit("part-3", null), submit("part-4", null)));

        for (int i : new int[]{0, 1, 3, 4}) {
            assertThat(answers.get(i).get(10, TimeUnit.SECONDS)).startsWith("part-");
        }
        assertThat(WriterHarness.failureOf(answers.get(2))).isSameAs(bug);
        assertThat(requestRows.existsById("broken")).isFalse();
        assertThat(List.of("part-1", "part-2", "part-3", "part-4")).allMatch(requestRows::existsById);
        assertThat(harness.workingSet.committedBatches() - batchesBefore)
                .as("the blocker's batch and this one: nothing to replay").isEqualTo(2);
    }

    /** Queues a request (row, snapshot and decision log entry), as a submit that finds no room does. */
    private static Mutation<String> submit(String id, String idempotencyKey) {
        return (before, changes) -> {
            GpuRequest request = GpuRequests.request(id).tenant("buffered").idempotencyKey(idempotencyKey)
                    .kind(WorkloadKind.DEV).milliPerGpu(500).at(NOW).build();
            changes.insert(request).log(LoggedDecision.of(DecisionAction.QUEUE, id, null, "buffered", List.of(), null,
                    "TEST", "queued"), NOW);
            return id;
        };
    }

    private static Lease lease(String id, String requestId) {
        return Leases.lease(id).request(requestId).tenant("buffered").pool("buffered-pool").kind(WorkloadKind.DEV)
                .createdAt(NOW).lastHeartbeat(NOW).build();
    }
}
