package io.gpupool.policy.fact;

import io.gpupool.policy.fact.FactReads.Moving;
import io.gpupool.policy.fact.FactReads.Order;
import io.gpupool.policy.fact.FactReads.Read;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recording an evaluation is later answered by: nested recordings, what each moving value
 * reads, how a reading is checked against new facts (the same object holds without being read
 * again), and which facts count as "the same apart from their moving values".
 */
class FactReadsLogTest {
    private static PoolFact pool(String id, long free, long lendable) {
        return new PoolFact(id, id, "TRAINING", false, 8, 8000, free, Map.of("H100-SXM-80G", 8000L),
                Map.of("H100-SXM-80G", free), 81_920, lendable);
    }

    private static TenantUsageFact usage(long used, long borrowed, long subtree, long withheldBelow) {
        return new TenantUsageFact("nlp", "ai-org", "train-a", "*", 4000, 2000, 1000, used, borrowed, subtree, withheldBelow);
    }

    private static final AncestorGuaranteeFact ANCESTOR = new AncestorGuaranteeFact("nlp", "train-a", "ai-org", 1, 3000, 500);

    @Test
    void eachMovingValueReadsItsOwnComponent() {
        PoolFact pool = pool("train-a", 3000, 1500);
        TenantUsageFact usage = usage(1000, 200, 1800, 300);

        assertThat(Moving.POOL_FREE.of(pool)).isEqualTo(3000L);
        assertThat(Moving.POOL_FREE_BY_MODEL.of(pool)).isEqualTo(Map.of("H100-SXM-80G", 3000L));
        assertThat(Moving.POOL_LENDABLE.of(pool)).isEqualTo(1500L);
        assertThat(Moving.USAGE_USED.of(usage)).isEqualTo(1000L);
        assertThat(Moving.USAGE_BORROWED.of(usage)).isEqualTo(200L);
        assertThat(Moving.USAGE_SUBTREE_USED.of(usage)).isEqualTo(1800L);
        assertThat(Moving.USAGE_WITHHELD_BELOW.of(usage)).isEqualTo(300L);
        assertThat(Moving.ANCESTOR_HEADROOM.of(ANCESTOR)).isEqualTo(3000L);
        assertThat(Moving.ANCESTOR_WITHHELD.of(ANCESTOR)).isEqualTo(500L);
    }

    @Test
    void everyMovingValueOfAUsageRowAndAnAncestorIsNotedWhenRead() {
        TenantUsageFact usage = usage(1000, 200, 1800, 300);
        List<FactReads.Reading> reads;
        try (FactReads.Log log = FactReads.record(List.of(usage, ANCESTOR))) {
            usage.borrowRoomMilli();
            usage.lendableMilli();
            ANCESTOR.availableMilli();
            usage.usedMilli();
            reads = log.reads();
        }

        assertThat(reads).containsExactly(new Read(0, Moving.USAGE_BORROWED, 200L),
                new Read(0, Moving.USAGE_SUBTREE_USED, 1800L), new Read(0, Moving.USAGE_WITHHELD_BELOW, 300L),
                new Read(1, Moving.ANCESTOR_HEADROOM, 3000L), new Read(1, Moving.ANCESTOR_WITHHELD, 500L),
                new Read(0, Moving.USAGE_USED, 1000L));
    }

    @Test
    void aRecordingInsideAnotherNotesIntoTheInnerOneAndThenTheOuterResumes() {
        PoolFact a = pool("train-a", 1000, 0);
        PoolFact b = pool("train-b", 2000, 0);
        try (FactReads.Log outer = FactReads.record(List.of(a, b))) {
            try (FactReads.Log inner = FactReads.record(List.of(b))) {
                b.freeMilli();
                assertThat(inner.reads()).containsExactly(new Read(0, Moving.POOL_FREE, 2000L));
            }
            a.lendableMilli();
            assertThat(outer.reads()).containsExactly(new Read(0, Moving.POOL_LENDABLE, 0L));
            assertThat(outer.complete()).isTrue();
        }
    }

    @Test
    void anIncompleteInnerRecordingLeavesTheOuterOneIncompleteToo() {
        PoolFact a = pool("train-a", 1000, 0);
        try (FactReads.Log outer = FactReads.record(List.of(a))) {
            try (FactReads.Log inner = FactReads.record(List.of(a))) {
                pool("made-by-a-rule", 5, 0).freeMilli();
                assertThat(inner.complete()).isFalse();
            }
            assertThat(outer.complete()).isFalse();
        }
    }

    @Test
    void aCompleteInnerRecordingLeavesTheOuterOneComplete() {
        PoolFact a = pool("train-a", 1000, 0);
        try (FactReads.Log outer = FactReads.record(List.of(a))) {
            try (FactReads.Log inner = FactReads.record(List.of(a))) {
                a.freeMilli();
            }
            assertThat(outer.complete()).isTrue();
            assertThat(outer.reads()).isEmpty();
        }
    }

    @Test
    void closingARecordingTwiceDoesNotEndTheOneAroundIt() {
        PoolFact a = pool("train-a", 1000, 0);
        try (FactReads.Log outer = FactReads.record(List.of(a))) {
            FactReads.Log inner = FactReads.record(List.of(a));
            inner.close();
            inner.close();
            a.freeMilli();
            assertThat(outer.reads()).containsExactly(new Read(0, Moving.POOL_FREE, 1000L));
        }
        a.freeMilli();
    }

    @Test
    void anOrderBetweenAFactAndOneThatIsNoInputLeavesTheRecordingIncomplete() {
        PoolFact a = pool("train-a", 1000, 0);
        try (FactReads.Log log = FactReads.record(List.of(a))) {
            a.compareFreeMilli(pool("elsewhere", 2000, 0));
            assertThat(log.complete()).isFalse();
            assertThat(log.reads()).isEmpty();
        }
    }

    @Test
    void theSameOrderIsNotedOnceAndTheReverseOrderSeparately() {
        PoolFact a = pool("train-a", 1000, 0);
        PoolFact b = pool("train-b", 2000, 0);
        try (FactReads.Log log = FactReads.record(List.of(a, b))) {
            a.compareFreeMilli(b);
            a.compareFreeMilli(b);
            b.compareFreeMilli(a);
            assertThat(log.reads()).containsExactly(new Order(0, 1, Moving.POOL_FREE, -1), new Order(1, 0, Moving.POOL_FREE, 1));
        }
    }

    @Test
    void theSameFactTwiceInTheInputsIsNotedAtItsFirstPosition() {
        PoolFact a = pool("train-a", 1000, 0);
        try (FactReads.Log log = FactReads.record(List.of(a, a))) {
            a.freeMilli();
            assertThat(log.reads()).containsExactly(new Read(0, Moving.POOL_FREE, 1000L));
        }
    }

    @Test
    void aReadHoldsWhereTheValueIsTheSameAndNotBeyondTheFactsGiven() {
        Read read = new Read(1, Moving.POOL_FREE, 1000L);

        assertThat(read.holdsIn(List.of(pool("x", 0, 0), pool("train-a", 1000, 99)))).isTrue();
        assertThat(read.holdsIn(List.of(pool("x", 0, 0), pool("train-a", 999, 0)))).isFalse();
        assertThat(read.holdsIn(List.of(pool("x", 0, 0)))).isFalse();
    }

    @Test
    void aReadHoldsForTheVerySameFactWithoutReadingItAgain() {
        PoolFact same = pool("train-a", 1000, 0);
        Read stale = new Read(0, Moving.POOL_FREE, 5L); // what it was then does not matter: the object is unchanged

        assertThat(stale.holdsIn(List.of(same), List.of(same))).isTrue();
        assertThat(stale.holdsIn(List.of(same), List.of(pool("train-a", 1000, 0)))).isFalse();
        assertThat(stale.holdsIn(List.of(), List.of(same))).isFalse();
        assertThat(new Read(0, Moving.POOL_FREE, 1000L).holdsIn(List.of(), List.of(pool("train-a", 1000, 0)))).isTrue();
    }

    @Test
    void anOrderHoldsWhileTheComparisonGivesTheSameSign() {
        Order lessFree = new Order(0, 1, Moving.POOL_FREE, -1);
        Order equallyFree = new Order(0, 1, Moving.POOL_FREE, 0);

        assertThat(lessFree.holdsIn(List.of(pool("a", 100, 0), pool("b", 5000, 0)))).isTrue();
        assertThat(lessFree.holdsIn(List.of(pool("a", 5000, 0), pool("b", 5000, 0)))).isFalse();
        assertThat(equallyFree.holdsIn(List.of(pool("a", 5000, 0), pool("b", 5000, 0)))).isTrue();
        assertThat(lessFree.holdsIn(List.of(pool("a", 100, 0)))).isFalse();
    }

    @Test
    void anOrderHoldsForTheVerySameFactsWithoutComparingThemAgain() {
        PoolFact a = pool("a", 5000, 0);
        PoolFact b = pool("b", 100, 0);
        Order claimed = new Order(0, 1, Moving.POOL_FREE, -1); // false by value, but both objects are unchanged

        assertThat(claimed.holdsIn(List.of(a, b), List.of(a, b))).isTrue();
        assertThat(claimed.holdsIn(List.of(a, b), List.of(a, pool("b", 100, 0)))).isFalse();
        assertThat(claimed.holdsIn(List.of(a), List.of(a, b))).isFalse();
    }

    /**
     * Every component of the three facts with moving values, changed alone: a moving one leaves the
     * facts the same apart from moving values, any other makes them differ (a component added to a
     * fact and forgotten by its comparison fails here).
     */
    @Test
    void changingAnyComponentButAMovingOneMakesFactsDiffer() throws Exception {
        PoolFact pool = new PoolFact("train-a", "Train A", "TRAINING", false, 8, 8000, 3000, Map.of("H100-SXM-80G", 8000L),
                Map.of("H100-SXM-80G", 3000L), 81_920, 1500, java.util.Set.of("r1"));
        assertEachComponent(pool, java.util.Set.of("freeMilli", "freeMilliByModel", "lendableMilli"));
        assertEachComponent(usage(1000, 200, 1800, 300),
                java.util.Set.of("usedMilli", "borrowedMilli", "subtreeUsedMilli", "withheldBelowMilli"));
        assertEachComponent(ANCESTOR, java.util.Set.of("headroomMilli", "withheldMilli"));
    }

    private static void assertEachComponent(Record fact, java.util.Set<String> moving) throws Exception {
        java.lang.reflect.RecordComponent[] components = fact.getClass().getRecordComponents();
        Class<?>[] types = java.util.Arrays.stream(components).map(java.lang.reflect.RecordComponent::getType).toArray(Class<?>[]::new);
        java.lang.reflect.Constructor<?> canonical = fact.getClass().getDeclaredConstructor(types);
        for (int changed = 0; changed < components.length; changed++) {
            Object[] values = new Object[components.length];
            for (int i = 0; i < components.length; i++) {
                java.lang.reflect.Field field = fact.getClass().getDeclaredField(components[i].getName());
                field.setAccessible(true); // the raw value: accessors of moving values note their reads
                values[i] = field.get(fact);
            }
            values[changed] = another(values[changed], types[changed]);
            Object copy = canonical.newInstance(values);
            String name = components[changed].getName();
            assertThat(FactReads.sameApartFromMoving(fact, copy))
                    .as("%s with only %s changed", fact.getClass().getSimpleName(), name)
                    .isEqualTo(moving.contains(name));
        }
    }

    private static Object another(Object value, Class<?> type) {
        if (type == String.class) {
            return value + "-other";
        } else if (type == long.class) {
            return (Long) value + 7;
        } else if (type == int.class) {
            return (Integer) value + 7;
        } else if (type == boolean.class) {
            return !(Boolean) value;
        } else if (type == Map.class) {
            return Map.of("A100-SXM4-40G", 1L);
        } else if (type == java.util.Set.class) {
            return java.util.Set.of("r2");
        }
        throw new IllegalArgumentException("no other value for " + type);
    }

    @Test
    void factsAreTheSameApartFromMovingValuesOnlyWhenEverythingElseIsEqual() {
        assertThat(FactReads.sameApartFromMoving(usage(1, 2, 3, 4), usage(9, 9, 9, 9))).isTrue();
        assertThat(FactReads.sameApartFromMoving(usage(1, 2, 3, 4), new TenantUsageFact("nlp", "ai-org", "train-a", "*",
                4000, 2000, 0, 1, 2, 3, 4))).isFalse();
        assertThat(FactReads.sameApartFromMoving(ANCESTOR, new AncestorGuaranteeFact("nlp", "train-a", "ai-org", 1, 0, 0)))
                .isTrue();
        assertThat(FactReads.sameApartFromMoving(ANCESTOR, new AncestorGuaranteeFact("nlp", "train-a", "root", 2, 3000, 500)))
                .isFalse();
    }

    @Test
    void otherFactsAreComparedWholeAndDifferentTypesNeverMatch() {
        RequestFact request = RequestFact.whole("req-1", "nlp", "training", 8);

        assertThat(FactReads.sameApartFromMoving(request, RequestFact.whole("req-1", "nlp", "TRAINING", 8))).isTrue();
        assertThat(FactReads.sameApartFromMoving(request, RequestFact.whole("req-1", "nlp", "TRAINING", 4))).isFalse();
        assertThat(FactReads.sameApartFromMoving(request, request)).isTrue();
        assertThat(FactReads.sameApartFromMoving(pool("a", 1, 1), usage(1, 1, 1, 1))).isFalse();
        assertThat(FactReads.sameApartFromMoving(null, request)).isFalse();
        assertThat(FactReads.sameApartFromMoving(request, "req-1")).isFalse();
    }
}
