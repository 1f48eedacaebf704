package io.gpupool.policy.fact;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An evaluation is answered again by what it read of the moving fact values only if every read of
 * them is noted ({@link FactReads}): the fact classes read a moving component only in its own
 * accessor, everything else (derived methods, lambdas, equals, hashCode, toString) goes through
 * the accessor, and the accessor notes the read while an evaluation on this thread records.
 */
class FactReadsTest {
    private static final Map<Class<?>, List<String>> MOVING = Map.of(
            PoolFact.class, List.of("freeMilli", "freeMilliByModel", "lendableMilli"),
            TenantUsageFact.class, List.of("usedMilli", "borrowedMilli", "subtreeUsedMilli", "withheldBelowMilli"),
            AncestorGuaranteeFact.class, List.of("headroomMilli", "withheldMilli"));

    @Test
    void theFactClassesReadEachMovingValueOnlyInItsAccessor() {
        for (Map.Entry<Class<?>, List<String>> type : MOVING.entrySet()) {
            JavaClass imported = new ClassFileImporter().importClass(type.getKey());
            for (String field : type.getValue()) {
                Set<String> readers = imported.getField(field).getAccessesToSelf().stream()
                        .filter(a -> a.getAccessType() == JavaFieldAccess.AccessType.GET)
                        .map(a -> a.getOrigin().getName()).collect(Collectors.toSet());
                Set<String> allowed = field.equals("freeMilli") ? Set.of(field, "compareFreeMilli") : Set.of(field);
                assertThat(allowed).as(type.getKey().getSimpleName() + "." + field + " is read by").containsAll(readers);
            }
        }
    }

    @Test
    void equalsHashCodeAndToStringReadTheMovingValuesThroughTheirAccessors() {
        for (Map.Entry<Class<?>, List<String>> type : MOVING.entrySet()) {
            JavaClass imported = new ClassFileImporter().importClass(type.getKey());
            for (String method : List.of("equals", "hashCode", "toString")) {
                Set<String> called = imported.getMethods().stream().filter(m -> m.getName().equals(method))
                        .flatMap(m -> m.getMethodCallsFromSelf().stream())
                        .filter(c -> c.getTargetOwner().isEquivalentTo(type.getKey()))
                        .map(JavaMethodCall::getName).collect(Collectors.toSet());
                assertThat(called).as(type.getKey().getSimpleName() + "." + method + " calls").containsAll(type.getValue());
            }
        }
    }

    @Test
    void anEvaluationNotesTheMovingValuesItReadsByPositionOnceEach() {
        PoolFact pool = new PoolFact("p", "P", "TRAINING", false, 2, 2000, 1000, Map.of("H100", 2000L), Map.of("H100", 1000L),
                81920, 500);
        TenantUsageFact usage = new TenantUsageFact("t", "t", "p", "*", 1000, 0, 0, 200, 0, 200);
        RequestFact request = RequestFact.whole("r", "t", "TRAINING", 1);
        List<Object> facts = List.of(request, pool, usage);

        List<FactReads.Reading> reads;
        try (FactReads.Log log = FactReads.record(facts)) {
            pool.canFitNow(request);
            pool.freeMilli();
            usage.headroomMilli();
            assertThat(log.complete()).isTrue();
            reads = log.reads();
        }

        assertThat(reads).containsExactly(new FactReads.Read(1, FactReads.Moving.POOL_FREE, 1000L),
                new FactReads.Read(2, FactReads.Moving.USAGE_SUBTREE_USED, 200L));
        PoolFact fuller = new PoolFact("p", "P", "TRAINING", false, 2, 2000, 0, Map.of("H100", 2000L), Map.of("H100", 0L),
                81920, 500);
        PoolFact lendsLess = new PoolFact("p", "P", "TRAINING", false, 2, 2000, 1000, Map.of("H100", 2000L),
                Map.of("H100", 1000L), 81920, 0);
        assertThat(reads.get(0).holdsIn(List.of(request, fuller, usage))).isFalse();
        assertThat(reads.get(0).holdsIn(List.of(request, lendsLess, usage))).isTrue(); // lendable was not read
        assertThat(FactReads.sameApartFromMoving(lendsLess, fuller)).isTrue();
        assertThat(FactReads.sameApartFromMoving(pool, new PoolFact("p", "P", "ELASTIC", false, 2, 2000, 1000,
                Map.of("H100", 2000L), Map.of("H100", 1000L), 81920, 500))).isFalse();
    }

    @Test
    void poolsOrderedByFreeCapacityNoteTheOrderAloneSoAnotherAmountInTheSameOrderStillHolds() {
        PoolFact roomy = new PoolFact("a", "A", "ELASTIC", true, 4, 4000, 3000, Map.of(), Map.of(), 16384, 0);
        PoolFact tight = new PoolFact("b", "B", "ELASTIC", true, 4, 4000, 1000, Map.of(), Map.of(), 16384, 0);
        List<FactReads.Reading> reads;
        try (FactReads.Log log = FactReads.record(List.of(roomy, tight))) {
            assertThat(tight.compareFreeMilli(roomy)).isNegative();
            reads = log.reads();
        }

        assertThat(reads).containsExactly(new FactReads.Order(1, 0, FactReads.Moving.POOL_FREE, -1));
        PoolFact lessRoomy = new PoolFact("a", "A", "ELASTIC", true, 4, 4000, 2000, Map.of(), Map.of(), 16384, 0);
        PoolFact roomier = new PoolFact("b", "B", "ELASTIC", true, 4, 4000, 3500, Map.of(), Map.of(), 16384, 0);
        assertThat(reads.get(0).holdsIn(List.of(lessRoomy, tight))).isTrue();
        assertThat(reads.get(0).holdsIn(List.of(roomy, roomier))).isFalse();
    }

    @Test
    void aMovingValueReadFromAFactThatIsNoInputLeavesTheRecordingIncomplete() {
        PoolFact pool = new PoolFact("p", "P", "TRAINING", false, 2, 2000, 1000, Map.of(), Map.of(), 81920, 500);
        try (FactReads.Log log = FactReads.record(List.of(pool))) {
            pool.withoutPlacementFor("r").freeMilli(); // a copy made during the evaluation
            assertThat(log.complete()).isFalse();
        }
    }

    @Test
    void outsideARecordingNothingIsNoted() {
        PoolFact pool = new PoolFact("p", "P", "TRAINING", false, 2, 2000, 1000, Map.of(), Map.of(), 81920, 500);
        try (FactReads.Log log = FactReads.record(List.of(pool))) {
            assertThat(log.reads()).isEmpty();
        }
        assertThat(pool.freeMilli()).isEqualTo(1000); // and an accessor outside one just answers
    }
}
