package io.gpupool.store;

import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One batch's mutations in memory, before anything is written ({@link WriteBatch}): each sees the
 * model the previous successful one left, a refused one is left out with its rows, a write of two
 * steps commits or fails as one, a nested write fails its enclosing mutation even when caught, and
 * only a change of the model takes a new version.
 */
class WriteBatchTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
    private static final PoolSnapshot PUBLISHED = PoolSnapshot.builder().version(10).takenAt(NOW.minusSeconds(60)).build();

    private final AtomicLong versions = new AtomicLong(100);

    private WriteBatch batch(List<PendingWrite<?>> writes) {
        return new WriteBatch(writes, null, Clock.fixed(NOW, ZoneOffset.UTC), versions::incrementAndGet);
    }

    private static Mutation<String> addTenant(String id) {
        return (before, changes) -> {
            changes.put(new Tenant(id, id, null, null));
            return id;
        };
    }

    @Test
    void eachWriteSeesTheModelThePreviousSuccessfulWriteLeftAndARefusedOneIsLeftOut() {
        List<String> seen = new ArrayList<>();
        PendingWrite<String> a = new PendingWrite<>(addTenant("vision"));
        PendingWrite<String> refused = new PendingWrite<>((before, changes) -> {
            changes.put(new Tenant("ghost", "ghost", null, null));
            throw ProblemException.conflict("over quota");
        });
        PendingWrite<String> c = new PendingWrite<>((before, changes) -> {
            seen.addAll(before.tenants().keySet());
            return addTenant("speech").apply(before, changes);
        });
        WriteBatch batch = batch(List.of(a, refused, c));

        PoolSnapshot after = batch.apply(PUBLISHED);

        assertThat(seen).containsExactly("vision");
        assertThat(after.tenants()).containsOnlyKeys("vision", "speech");
        assertThat(batch.rows()).as("the refused write's rows are gone").hasSize(2);
        assertThat(batch.rows()).flatExtracting(RowBuffer::ops).extracting(op -> ((Tenant) op.row()).id())
                .containsExactly("vision", "speech");
        assertThat(refused.stagedRows()).isEmpty();
        assertThat(refused.stagedAfter().tenants()).containsOnlyKeys("vision");
        assertThat(c.stagedRows()).hasSize(1);
        assertThat(batch.applied()).isTrue();
    }

    @Test
    void everyChangeOfTheModelTakesTheNextVersionAndANoOpWriteKeepsIt() {
        PendingWrite<String> first = new PendingWrite<>(addTenant("vision"));
        PendingWrite<String> noOp = new PendingWrite<>((before, changes) -> "nothing");
        PendingWrite<String> second = new PendingWrite<>(addTenant("speech"));

        PoolSnapshot after = batch(List.of(first, noOp, second)).apply(PUBLISHED);

        assertThat(first.stagedAfter().version()).isEqualTo(101);
        assertThat(noOp.stagedAfter()).isSameAs(first.stagedAfter());
        assertThat(after.version()).isEqualTo(102);
        assertThat(after.takenAt()).isEqualTo(NOW);
    }

    @Test
    void aBatchWithoutChangesReturnsThePublishedModel() {
        PendingWrite<String> noOp = new PendingWrite<>((before, changes) -> "nothing");

        assertThat(batch(List.of(noOp)).apply(PUBLISHED)).isSameAs(PUBLISHED);
        assertThat(versions.get()).as("no version taken").isEqualTo(100);
    }

    @Test
    void aWriteOfTwoStepsSeesItsFirstStepAndStagesBothAsOne() {
        PendingWrite<String> twoSteps = new PendingWrite<>(addTenant("vision"),
                id -> (before, changes) -> {
                    assertThat(before.tenant(id)).isPresent();
                    changes.put(new Tenant("vision-research", "research", id, null));
                    return "vision-research";
                });
        WriteBatch batch = batch(List.of(twoSteps));

        batch.apply(PUBLISHED);
        twoSteps.complete();

        assertThat(twoSteps.outcome()).isEqualTo("vision-research");
        assertThat(twoSteps.stagedRows()).hasSize(2);
        assertThat(twoSteps.stagedAfter().tenants()).containsOnlyKeys("vision", "vision-research");
    }

    @Test
    void aWriteWhoseSecondStepIsRefusedLeavesNothingOfItsFirst() {
        PendingWrite<String> twoSteps = new PendingWrite<>(addTenant("vision"),
                id -> (before, changes) -> {
                    throw ProblemException.conflict("parent refused");
                });
        PendingWrite<String> next = new PendingWrite<>(addTenant("speech"));
        WriteBatch batch = batch(List.of(twoSteps, next));

        PoolSnapshot after = batch.apply(PUBLISHED);

        assertThat(after.tenants()).containsOnlyKeys("speech");
        assertThat(batch.rows()).hasSize(1);
        assertThat(twoSteps.stagedRows()).isEmpty();
    }

    @Test
    void aNestedWriteThatFailsFailsItsEnclosingWriteEvenWhenCaught() {
        WriteBatch[] self = new WriteBatch[1];
        ProblemException nestedRefusal = ProblemException.conflict("nested refused");
        PendingWrite<String> enclosing = new PendingWrite<>((before, changes) -> {
            changes.put(new Tenant("vision", "vision", null, null));
            try {
                self[0].nested((b, c) -> {
                    throw nestedRefusal;
                });
            } catch (ProblemException swallowed) {
                // the enclosing mutation carries on, but its changes may be half stated
            }
            return "done anyway";
        });
        self[0] = batch(List.of(enclosing));

        PoolSnapshot after = self[0].apply(PUBLISHED);
        enclosing.complete();

        assertThatThrownBy(enclosing::outcome).isSameAs(nestedRefusal);
        assertThat(after).isSameAs(PUBLISHED);
    }

    @Test
    void aNestedWriteRunsInsideItsEnclosingWritesChanges() {
        WriteBatch[] self = new WriteBatch[1];
        PendingWrite<String> enclosing = new PendingWrite<>((before, changes) -> {
            return "nested " + self[0].nested(addTenant("speech"));
        });
        self[0] = batch(List.of(enclosing));

        PoolSnapshot after = self[0].apply(PUBLISHED);

        enclosing.complete();

        assertThat(enclosing.outcome()).isEqualTo("nested speech");
        assertThat(after.tenants()).containsOnlyKeys("speech");
        assertThat(enclosing.stagedRows()).hasSize(1);
    }

    @Test
    void aNestedWriteOutsideAnyMutationIsRefused() {
        WriteBatch idle = batch(List.of());

        assertThatThrownBy(() -> idle.nested(addTenant("vision"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("outside a mutation");
    }

    @Test
    void anErrorInAMutationAbortsTheWholeBatch() {
        PendingWrite<String> first = new PendingWrite<>(addTenant("vision"));
        PendingWrite<String> broken = new PendingWrite<>((before, changes) -> {
            throw new StackOverflowError("rule recursion");
        });
        WriteBatch batch = batch(List.of(first, broken));

        assertThatThrownBy(() -> batch.apply(PUBLISHED)).isInstanceOf(StackOverflowError.class);
        assertThat(batch.applied()).isFalse();
    }
}
