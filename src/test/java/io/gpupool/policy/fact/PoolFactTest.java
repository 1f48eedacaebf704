package io.gpupool.policy.fact;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What rules ask a pool about a request: whether it fits now, on which models, whether it ever
 * could. The pool below has four H100s (one and a half free) and two L4s (both free), 80 GiB at most.
 */
class PoolFactTest {
    private static final PoolFact POOL = new PoolFact("training", "training", "TRAINING", false, 6, 6000, 3500,
            Map.of("H100", 4000L, "L4", 2000L), Map.of("H100", 1500L, "L4", 2000L), 80 * 1024, 0);

    private static RequestFact request(String id, int gpus, int milli, List<String> models, long minMemoryMib) {
        return new RequestFact(id, "acme", "TRAINING", gpus, milli, null, models, minMemoryMib, 1, null, false, 0);
    }

    @Test
    void aRequestForAnyModelCountsTheWholePoolsFreeCapacity() {
        RequestFact anyModel = request("r", 3, 1000, List.of(), 0);

        assertThat(POOL.freeMilliFor(anyModel)).isEqualTo(3500);
        assertThat(POOL.canFitNow(anyModel)).isTrue();
    }

    @Test
    void aRequestPinnedToModelsCountsOnlyTheFreeCapacityOfThoseModels() {
        RequestFact h100 = request("r", 2, 1000, List.of("H100"), 0);
        RequestFact h100OrA100 = request("r", 1, 1000, List.of("H100", "A100"), 0);

        assertThat(POOL.freeMilliFor(h100)).isEqualTo(1500);
        assertThat(POOL.canFitNow(h100)).isFalse();
        assertThat(POOL.freeMilliFor(h100OrA100)).isEqualTo(1500);
        assertThat(POOL.canFitNow(h100OrA100)).isTrue();
    }

    @Test
    void aRequestForExactlyTheFreeCapacityFitsNow() {
        assertThat(POOL.canFitNow(request("r", 7, 500, List.of(), 0))).isTrue(); // 3500 of 3500
        assertThat(POOL.canFitNow(request("r", 3, 1167, List.of(), 0))).isFalse(); // 3501
    }

    @Test
    void aRequestTheAllocatorFoundUnplaceableDoesNotFitWhateverTheTotalsSayButOthersStillDo() {
        PoolFact tried = POOL.withoutPlacementFor("r1");

        assertThat(tried.canFitNow(request("r1", 1, 1000, List.of(), 0))).isFalse();
        assertThat(tried.canFitNow(request("r2", 1, 1000, List.of(), 0))).isTrue();
        assertThat(tried.withoutPlacementFor("r2").unplaceable()).containsExactlyInAnyOrder("r1", "r2");
        assertThat(POOL.unplaceable()).isEmpty();
        assertThat(tried.freeMilli()).isEqualTo(POOL.freeMilli());
        assertThat(tried.freeMilliByModel()).isEqualTo(POOL.freeMilliByModel());
        assertThat(tried.capacityMilliByModel()).isEqualTo(POOL.capacityMilliByModel());
    }

    @Test
    void theOnlyModelIsTheOneAcceptedModelThePoolHasAndNoneWhenSeveralOrNoneAreAccepted() {
        assertThat(POOL.onlyModelFor(request("r", 1, 1000, List.of("L4"), 0))).isEqualTo("L4");
        assertThat(POOL.onlyModelFor(request("r", 1, 1000, List.of("L4", "A100"), 0))).isEqualTo("L4");
        assertThat(POOL.onlyModelFor(request("r", 1, 1000, List.of(), 0))).isNull();
        assertThat(POOL.onlyModelFor(request("r", 1, 1000, List.of("A100"), 0))).isNull();

        PoolFact h100Only = new PoolFact("p", "p", "TRAINING", false, 2, 2000, 2000, Map.of("H100", 2000L),
                Map.of("H100", 2000L), 80 * 1024, 0);
        assertThat(h100Only.onlyModelFor(request("r", 1, 1000, List.of(), 0))).isEqualTo("H100");
    }

    @Test
    void aPoolCanEverHostARequestWithAnAcceptedModelAndACardWithEnoughMemory() {
        assertThat(POOL.canEverHost(request("r", 1, 1000, List.of(), 80 * 1024))).isTrue();
        assertThat(POOL.canEverHost(request("r", 1, 1000, List.of(), 80 * 1024 + 1))).isFalse();
        assertThat(POOL.canEverHost(request("r", 1, 1000, List.of("A100", "L4"), 0))).isTrue();
        assertThat(POOL.canEverHost(request("r", 1, 1000, List.of("A100"), 0))).isFalse();
    }

    @Test
    void aPoolWithoutSchedulableCardsCanNeverHostAnything() {
        PoolFact empty = new PoolFact("p", "p", "TRAINING", false, 0, 0, 0, Map.of(), Map.of(), 80 * 1024, 0);

        assertThat(empty.canEverHost(request("r", 1, 1000, List.of(), 0))).isFalse();
    }

    @Test
    void aPoolIsApprovedForARequestOnlyWhenTheRequestNamedItAndWasApproved() {
        RequestFact approvedHere = new RequestFact("r", "acme", "TRAINING", 1, 1000, null, List.of(), 0, 1, null,
                false, 0, "training", true);
        RequestFact namedNotApproved = new RequestFact("r", "acme", "TRAINING", 1, 1000, null, List.of(), 0, 1, null,
                false, 0, "training", false);
        RequestFact approvedElsewhere = new RequestFact("r", "acme", "TRAINING", 1, 1000, null, List.of(), 0, 1, null,
                false, 0, "inference", true);

        assertThat(POOL.approvedFor(approvedHere)).isTrue();
        assertThat(POOL.approvedFor(namedNotApproved)).isFalse();
        assertThat(POOL.approvedFor(approvedElsewhere)).isFalse();
    }

    @Test
    void poolsOrderByFreeCapacity() {
        PoolFact fuller = new PoolFact("p", "p", "TRAINING", false, 6, 6000, 1000, Map.of(), Map.of(), 0, 0);

        assertThat(POOL.compareFreeMilli(fuller)).isPositive();
        assertThat(fuller.compareFreeMilli(POOL)).isNegative();
        assertThat(POOL.compareFreeMilli(POOL.withoutPlacementFor("x"))).isZero();
    }

    @Test
    void missingModelMapsAndUnplaceableSetsReadAsEmpty() {
        PoolFact bare = new PoolFact("p", "p", "TRAINING", false, 0, 0, 0, null, null, 0, 0, null);

        assertThat(bare.capacityMilliByModel()).isEmpty();
        assertThat(bare.freeMilliByModel()).isEmpty();
        assertThat(bare.unplaceable()).isEqualTo(Set.of());
        assertThat(bare.freeMilliFor(request("r", 1, 1000, List.of("H100"), 0))).isZero();
    }
}
