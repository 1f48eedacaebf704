package io.gpupool.store;

import io.gpupool.store.row.TenantRepository;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.testing.DatabaseTest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The group-commit writer keeps {@link WorkingSet}'s contract when mutations share a transaction:
 * a failing mutation takes only its own changes with it, each mutation sees the previous ones, a
 * failed commit publishes nothing, no mutation runs twice, and concurrent writers neither lose nor
 * repeat a mutation.
 *
 * <p>Batches are formed deterministically: a first write blocks inside its mutation (holding the
 * writer) until the writes under test are all queued; they then run as the next batch, in order.
 */
@DatabaseTest
class GroupCommitTest extends WriterHarnessTest {
    private CommitFailingTransactions tx;
    private TenantRepository tenantRows;
    private WorkingSet workingSet;
    private ExecutorService threads;

    @BeforeAll
    void start() {
        tx = harness.tx;
        tenantRows = harness.ctx.getBean(TenantRepository.class);
    }

    @BeforeEach
    void useFreshWriter() {
        workingSet = harness.workingSet;
        threads = harness.threads();
    }

    private <R> List<CompletableFuture<R>> runAsOneBatch(List<Mutation<R>> batch) throws Exception {
        return harness.runAsOneBatch(batch);
    }

    private static Throwable failureOf(CompletableFuture<?> answer) throws InterruptedException {
        return WriterHarness.failureOf(answer);
    }

    @Test
    void aRefusedMutationLeavesTheOthersOfItsBatchCommittedAndNothingOfItsOwn() throws Exception {
        ProblemException refusal = ProblemException.conflict("refused after stating a change");
        long batchesBefore = workingSet.committedBatches();
        List<Mutation<String>> batch = List.of(
                insert("fail-a"),
                (before, changes) -> { // states a change, then refuses
                    insert("fail-b").apply(before, changes);
                    throw refusal;
                },
                (before, changes) -> {
                    assertThat(before.tenant("fail-a")).as("sees fail-a").isPresent();
                    assertThat(before.tenant("fail-b")).as("does not see the refused write's change").isEmpty();
                    return insert("fail-d").apply(before, changes);
                },
                insert("fail-e"));

        List<CompletableFuture<String>> answers = runAsOneBatch(batch);

        assertThat(answers.get(0).get(10, TimeUnit.SECONDS)).isEqualTo("fail-a");
        assertThat(failureOf(answers.get(1))).isSameAs(refusal);
        assertThat(answers.get(2).get(10, TimeUnit.SECONDS)).isEqualTo("fail-d");
        assertThat(answers.get(3).get(10, TimeUnit.SECONDS)).isEqualTo("fail-e");
        for (String committed : List.of("fail-a", "fail-d", "fail-e")) {
            assertThat(workingSet.current().tenant(committed)).as(committed + " in memory").isPresent();
            assertThat(tenantRows.existsById(committed)).as(committed + " in the database").isTrue();
        }
        assertThat(workingSet.current().tenant("fail-b")).as("the refused mutation's tenant in memory").isEmpty();
        assertThat(tenantRows.existsById("fail-b")).as("the refused mutation's row").isFalse();
        assertThat(workingSet.committedBatches() - batchesBefore).as("the blocker's batch and this one, in one commit")
                .isEqualTo(2);
    }

    @Test
    void whenTheDatabaseRefusesAWritesRowsTheWritesBeforeItCommitAndTheWritesAfterItAreNotCommitted() throws Exception {
        List<Mutation<String>> batch = List.of(
                insert("db-a"), insert("db-b"),
                (before, changes) -> { // a parent memory does not check but the foreign key does
                    changes.put(new Tenant("db-orphan", "orphan", "no-such-parent", null));
                    return "db-orphan";
                },
                insert("db-d"), insert("db-e"));

        List<CompletableFuture<String>> answers = runAsOneBatch(batch);

        assertThat(answers.get(0).get(10, TimeUnit.SECONDS)).isEqualTo("db-a");
        assertThat(answers.get(1).get(10, TimeUnit.SECONDS)).isEqualTo("db-b");
        assertThat(failureOf(answers.get(2))).as("the database's own refusal").isNotInstanceOf(ProblemException.class);
        for (int later : new int[]{3, 4}) {
            assertThat(failureOf(answers.get(later))).as("a write that ran on the refused one's change")
                    .isInstanceOfSatisfying(ProblemException.class, e -> {
                        assertThat(e.kind()).isEqualTo(ProblemException.Kind.UNAVAILABLE);
                        assertThat(e.getMessage()).contains("Retry");
                    });
        }
        for (String id : List.of("db-a", "db-b")) {
            assertThat(workingSet.current().tenant(id)).as(id + " in memory").isPresent();
            assertThat(tenantRows.existsById(id)).as(id + " in the database").isTrue();
        }
        for (String id : List.of("db-orphan", "db-d", "db-e")) {
            assertThat(workingSet.current().tenant(id)).as(id + " in memory").isEmpty();
            assertThat(tenantRows.existsById(id)).as(id + " in the database").isFalse();
        }
        workingSet.write(insert("db-after"));
        assertThat(tenantRows.existsById("db-after")).as("the writer goes on").isTrue();
    }

    @Test
    void noMutationRunsTwiceWhateverFailsInItsBatch() throws Exception {
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        List<Mutation<String>> batch = new ArrayList<>();
        for (String id : List.of("once-1", "once-2", "once-3", "once-4", "once-5", "once-6")) {
            batch.add((before, changes) -> {
                runs.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                switch (id) {
                    case "once-2" -> throw ProblemException.conflict("refused");
                    case "once-3" -> throw new IllegalStateException("a bug, not a refusal");
                    case "once-5" -> changes.put(new Tenant(id, id, "no-such-parent", null)); // refused by the database
                    default -> insert(id).apply(before, changes);
                }
                return id;
            });
        }

        List<CompletableFuture<String>> answers = runAsOneBatch(batch);
        for (CompletableFuture<String> answer : answers) {
            answer.handle((value, failure) -> value).get(10, TimeUnit.SECONDS);
        }

        assertThat(runs).as("every mutation ran exactly once").hasSize(6).allSatisfy((id, count) ->
                assertThat(count.get()).as(id).isEqualTo(1));
        assertThat(tenantRows.existsById("once-1") && tenantRows.existsById("once-4")).isTrue();
        assertThat(tenantRows.existsById("once-6")).as("after the database's refusal").isFalse();
    }

    @Test
    void noRowOfABatchReachesTheDatabaseBeforeTheBatchCommitsAndEachMutationSeesThePreviousOnesResult() throws Exception {
        List<Mutation<String>> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String previous = "chain-" + (i - 1);
            boolean first = i == 0;
            Mutation<String> insert = insert("chain-" + i);
            batch.add((before, changes) -> {
                if (!first) {
                    assertThat(before.tenant(previous)).as("memory: " + previous).isPresent();
                    assertThat(tenantRows.existsById(previous)).as("database, before the commit: " + previous).isFalse();
                }
                return insert.apply(before, changes);
            });
        }
        long batchesBefore = workingSet.committedBatches();

        for (CompletableFuture<String> answer : runAsOneBatch(batch)) {
            answer.get(10, TimeUnit.SECONDS); // an assertion error inside a mutation fails its answer
        }

        assertThat(workingSet.committedBatches() - batchesBefore).as("blocker's batch + one batch of ten").isEqualTo(2);
        for (int i = 0; i < 10; i++) {
            assertThat(workingSet.current().tenant("chain-" + i)).isPresent();
            assertThat(tenantRows.existsById("chain-" + i)).isTrue();
        }
    }

    @Test
    void aFailedCommitPublishesNothingAndEveryCallerGetsTheFailure() throws Exception {
        PoolSnapshot published = workingSet.current();
        List<Long> versionsSeen = new ArrayList<>();
        List<Mutation<String>> batch = new ArrayList<>();
        for (String id : List.of("lost-1", "lost-2", "lost-3")) {
            Mutation<String> insert = insert(id);
            batch.add((before, changes) -> {
                synchronized (versionsSeen) {
                    versionsSeen.add(before.version());
                }
                return insert.apply(before, changes);
            });
        }
        tx.failCommits = true;

        List<CompletableFuture<String>> answers = runAsOneBatch(batch);

        for (CompletableFuture<String> answer : answers) {
            assertThat(failureOf(answer)).isInstanceOf(CommitFailingTransactions.CommitFailed.class);
        }
        assertThat(workingSet.current()).as("nothing published").isSameAs(published);
        for (String id : List.of("lost-1", "lost-2", "lost-3")) {
            assertThat(tenantRows.existsById(id)).as(id + " in the database").isFalse();
        }

        tx.failCommits = false;
        workingSet.write(insert("after-failure"));
        assertThat(workingSet.current().tenant("lost-1")).isEmpty();
        assertThat(workingSet.current().tenant("after-failure")).isPresent();
        assertThat(workingSet.current().version()).as("versions of the failed batch's snapshots are never reused")
                .isGreaterThan(versionsSeen.stream().mapToLong(Long::longValue).max().orElseThrow() + 1);
    }

    @Test
    void concurrentWritersNeitherLoseNorRepeatAMutation() throws Exception {
        workingSet.write(insert("counter"));
        int writers = 16;
        int writesEach = 40;
        AtomicInteger refusedOnPurpose = new AtomicInteger();
        List<CompletableFuture<List<Integer>>> clients = new ArrayList<>();
        for (int t = 0; t < writers; t++) {
            int client = t;
            clients.add(CompletableFuture.supplyAsync(() -> {
                List<Integer> mine = new ArrayList<>();
                for (int i = 0; i < writesEach; i++) {
                    boolean refuse = (client + i) % 7 == 0;
                    try {
                        mine.add(workingSet.write(increment(refuse ? "ghost-" + client + "-" + i : null)));
                    } catch (ProblemException e) {
                        refusedOnPurpose.incrementAndGet();
                    }
                }
                return mine;
            }, threads));
        }
        Set<Integer> answered = new HashSet<>();
        int successes = 0;
        for (CompletableFuture<List<Integer>> client : clients) {
            for (int value : client.get(120, TimeUnit.SECONDS)) {
                assertThat(answered.add(value)).as("value " + value + " answered twice").isTrue();
                successes++;
            }
        }

        assertThat(successes + refusedOnPurpose.get()).isEqualTo(writers * writesEach);
        assertThat(refusedOnPurpose.get()).isPositive();
        int n = successes;
        assertThat(answered).as("every successful increment answered 1..n once").hasSize(n)
                .allSatisfy(v -> assertThat(v).isBetween(1, n));
        assertThat(counterName(workingSet.current().tenant("counter").orElseThrow())).isEqualTo(successes);
        assertThat(counterName(tenantRows.findById("counter").orElseThrow().toTenant())).isEqualTo(successes);
        assertThat(iterable(tenantRows.findAll())).as("rows of refused writes").noneMatch(r -> r.id().startsWith("ghost-"));
        assertThat(workingSet.committedBatches()).as("some writes shared a commit").isLessThan(writers * writesEach);
    }

    @Test
    void aNestedWriteRunsInlineAndFailsItsEnclosingMutationWhenItFails() {
        String result = workingSet.write((before, changes) -> {
            insert("outer").apply(before, changes);
            return workingSet.write(insert("inner"));
        });
        assertThat(result).isEqualTo("inner");
        assertThat(workingSet.current().tenant("outer")).isPresent();
        assertThat(workingSet.current().tenant("inner")).isPresent();

        ProblemException innerRefusal = ProblemException.invalid("inner refuses");
        assertThatThrownBy(() -> workingSet.write((before, changes) -> {
            insert("swallower").apply(before, changes);
            try {
                workingSet.write((b, c) -> {
                    insert("inner-2").apply(b, c);
                    throw innerRefusal;
                });
            } catch (ProblemException swallowed) {
                // the enclosing mutation ignores it; the writer must not
            }
            return "done";
        })).isSameAs(innerRefusal);
        assertThat(tenantRows.existsById("swallower")).isFalse();
        assertThat(tenantRows.existsById("inner-2")).isFalse();
        assertThat(workingSet.current().tenant("swallower")).isEmpty();
    }

    @Test
    void theSecondStepOfAWriteSeesTheFirstStepsChangeAndItsResult() {
        String result = workingSet.write(insert("step-1"), first -> (before, changes) -> {
            assertThat(before.tenant(first)).as("the first step's tenant, in the second's before").isPresent();
            return insert("step-2").apply(before, changes);
        });

        assertThat(result).isEqualTo("step-2");
        assertThat(workingSet.current().tenant("step-1")).isPresent();
        assertThat(workingSet.current().tenant("step-2")).isPresent();
        assertThat(tenantRows.existsById("step-1") && tenantRows.existsById("step-2")).isTrue();
    }

    @Test
    void whenTheSecondStepRefusesNeitherStepIsWrittenAndTheRestOfTheBatchCommits() throws Exception {
        ProblemException refusal = ProblemException.conflict("the second step refuses");
        List<CompletableFuture<String>> answers = harness.runWritesAsOneBatch(List.of(
                () -> workingSet.write(insert("two-a"), first -> (before, changes) -> {
                    insert("two-b").apply(before, changes);
                    throw refusal;
                }),
                () -> workingSet.write((before, changes) -> {
                    assertThat(before.tenant("two-a")).as("the refused write's first step, seen by the next write").isEmpty();
                    return insert("after-two").apply(before, changes);
                })));

        assertThat(failureOf(answers.get(0))).isSameAs(refusal);
        assertThat(answers.get(1).get(10, TimeUnit.SECONDS)).isEqualTo("after-two");
        assertThat(tenantRows.existsById("two-a")).as("first step's row").isFalse();
        assertThat(tenantRows.existsById("two-b")).as("second step's row").isFalse();
        assertThat(workingSet.current().tenant("two-a")).isEmpty();
        assertThat(workingSet.current().tenant("after-two")).isPresent();
    }

    @Test
    void aWriteInsideAnOuterTransactionIsRefused() {
        assertThatThrownBy(() -> tx.executeWrite(status -> workingSet.write(insert("in-outer-tx"))))
                .isInstanceOf(IllegalStateException.class);
        assertThat(tenantRows.existsById("in-outer-tx")).isFalse();
    }

    // ---- helpers

    private static Mutation<String> insert(String id) {
        return (before, changes) -> {
            changes.put(new Tenant(id, "tenant " + id, null, null));
            return id;
        };
    }

    /**
     * Adds one to the counter tenant's name in memory and database. With a {@code ghost} id it also
     * inserts that tenant and then refuses, so neither row may survive.
     */
    private static Mutation<Integer> increment(String ghost) {
        return (before, changes) -> {
            Tenant counter = before.tenant("counter").orElseThrow();
            Tenant plusOne = new Tenant(counter.id(), String.valueOf(counterName(counter) + 1), null, null);
            changes.put(plusOne);
            if (ghost != null) {
                insert(ghost).apply(before, changes);
                throw ProblemException.conflict("refused on purpose after writing");
            }
            return counterName(plusOne);
        };
    }

    private static <T> List<T> iterable(Iterable<T> all) {
        List<T> list = new ArrayList<>();
        all.forEach(list::add);
        return list;
    }

    private static int counterName(Tenant counter) {
        return counter.name().startsWith("tenant ") ? 0 : Integer.parseInt(counter.name());
    }
}
