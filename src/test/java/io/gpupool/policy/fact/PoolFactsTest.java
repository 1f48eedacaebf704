package io.gpupool.policy.fact;

import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.testing.LeaseChurn;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import static io.gpupool.policy.fact.TwoOrgFleet.A100;
import static io.gpupool.policy.fact.TwoOrgFleet.H100;
import static io.gpupool.policy.fact.TwoOrgFleet.L40S;
import static io.gpupool.testing.Fleets.node;
import static io.gpupool.testing.Fleets.nodeOf;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pool totals on {@link TwoOrgFleet} (training: 4 H100-SXM-80G and 2 A100-SXM4-40GB; inference: 2
 * L40S-PCIE-48G), counted from the cards, kept by {@link PoolFacts#add} as leases come and go, and
 * the lendable capacity summarised from the tenants' usage rows.
 */
class PoolFactsTest {
    private static final PoolSnapshot FLEET = TwoOrgFleet.withLeases();
    private static final Map<String, TenantFact> TENANTS = TenantFacts.resolve(FLEET);

    private static Map<String, List<TenantUsageFact>> usage(PoolSnapshot s) {
        return TenantFacts.usage(UsageLedger.of(s, TENANTS), s, TENANTS);
    }

    private static List<PoolFact> fresh(PoolSnapshot s) {
        return PoolFacts.of(s).summarise(s, TENANTS, usage(s));
    }

    private static PoolFact pool(List<PoolFact> facts, String id) {
        return facts.stream().filter(p -> p.poolId().equals(id)).findFirst().orElseThrow();
    }

    private static PoolSnapshot released(PoolSnapshot s, Lease... leases) {
        PoolSnapshotBuilder b = s.toBuilder().version(s.version() + 1);
        for (Lease l : leases) {
            b.lease(LeaseTransitions.end(l, LeaseState.RELEASED));
        }
        return b.build();
    }

    @Test
    void eachPoolCountsItsCardsCapacityAndWhatItsLeasesLeaveFreeInTotalAndPerModel() {
        List<PoolFact> facts = fresh(FLEET);

        assertThat(facts).extracting(PoolFact::poolId).containsExactly("training", "inference");
        PoolFact training = pool(facts, "training");
        assertThat(training.deviceCount()).isEqualTo(6);
        assertThat(training.capacityMilli()).isEqualTo(6000);
        assertThat(training.freeMilli()).as("two H100s, one H100, a whole A100 and half of one held").isEqualTo(1500);
        assertThat(training.capacityMilliByModel()).isEqualTo(Map.of(H100, 4000L, A100, 2000L));
        assertThat(training.freeMilliByModel()).isEqualTo(Map.of(H100, 1000L, A100, 500L));
        assertThat(training.maxMemoryMib()).isEqualTo(81_920);
        assertThat(training.tier()).isEqualTo("TRAINING");
        assertThat(training.sharingAllowed()).isFalse();
        PoolFact inference = pool(facts, "inference");
        assertThat(inference.freeMilliByModel()).isEqualTo(Map.of(L40S, 1000L));
        assertThat(inference.maxMemoryMib()).isEqualTo(49_152);
        assertThat(inference.tier()).isEqualTo("ELASTIC");
    }

    @Test
    void onlyCardsThatCanTakeWorkCountAsCapacityADegradedOneStillDoes() {
        PoolSnapshotBuilder b = TwoOrgFleet.withHealth(TwoOrgFleet.empty(), "fra-h100-01-gpu3", DeviceHealth.UNHEALTHY);
        b = TwoOrgFleet.withHealth(b, "fra-a100-01-gpu0", DeviceHealth.DEGRADED);
        b = TwoOrgFleet.withHealth(b, "fra-h100-01-gpu1", DeviceHealth.DRAINING);
        b = TwoOrgFleet.withHealth(b, "iad-l40s-01-gpu1", DeviceHealth.UNKNOWN);
        PoolSnapshot s = b.build();

        List<PoolFact> facts = fresh(s);

        PoolFact training = pool(facts, "training");
        assertThat(training.deviceCount()).isEqualTo(4);
        assertThat(training.capacityMilli()).isEqualTo(4000);
        assertThat(training.freeMilli()).isEqualTo(4000);
        assertThat(training.capacityMilliByModel()).isEqualTo(Map.of(H100, 2000L, A100, 2000L));
        assertThat(pool(facts, "inference").deviceCount()).isEqualTo(1);
        assertThat(pool(facts, "inference").capacityMilli()).isEqualTo(1000);
    }

    @Test
    void aLeaseOnABrokenCardTakesNothingFromThePoolAndGivesNothingBackWhenItEnds() {
        PoolSnapshot s = TwoOrgFleet.withHealth(FLEET.toBuilder(), "fra-h100-01-gpu2", DeviceHealth.UNHEALTHY).build();
        PoolFacts facts = PoolFacts.of(s);
        PoolSnapshot after = released(s, TwoOrgFleet.VISION_FT);

        facts.add(TwoOrgFleet.VISION_FT, -1, after);

        PoolFact training = pool(facts.summarise(after, TENANTS, usage(after)), "training");
        assertThat(training.capacityMilli()).isEqualTo(5000);
        assertThat(training.freeMilliByModel()).as("vision-ft's card is not free: it is not capacity at all")
                .isEqualTo(Map.of(H100, 1000L, A100, 500L));
        assertThat(training).isEqualTo(pool(fresh(after), "training"));
    }

    @Test
    void theLargestMemoryIsThatOfASchedulableCardAndAModelWithNoSchedulableCardHasNoEntry() {
        PoolSnapshotBuilder b = TwoOrgFleet.empty();
        for (int i = 0; i < 4; i++) {
            b = TwoOrgFleet.withHealth(b, "fra-h100-01-gpu" + i, DeviceHealth.OFFLINE);
        }

        PoolFact training = pool(fresh(b.build()), "training");

        assertThat(training.maxMemoryMib()).isEqualTo(40_960);
        assertThat(training.capacityMilliByModel()).containsOnlyKeys(A100);
        assertThat(training.freeMilliByModel()).containsOnlyKeys(A100);
    }

    @Test
    void aPoolWithoutCardsIsStillListedWithZeroTotalsAndACardInNoPoolCountsNowhere() {
        PoolSnapshotBuilder b = TwoOrgFleet.empty().pool(new Pool("elastic", "Elastic batch", PoolTier.ELASTIC, "default", true, null));
        nodeOf(b, node("fra-spare-01"), 2, gpu -> gpu.model(H100));
        PoolSnapshot s = b.build();

        List<PoolFact> facts = fresh(s);

        assertThat(pool(facts, "elastic")).isEqualTo(new PoolFact("elastic", "Elastic batch", "ELASTIC", true, 0, 0, 0,
                Map.of(), Map.of(), 0, 0));
        assertThat(pool(facts, "training").deviceCount()).isEqualTo(6);
        assertThat(facts.stream().mapToLong(PoolFact::capacityMilli).sum()).isEqualTo(8000);
    }

    @Test
    void leasesAddedToAndTakenFromCountedTotalsGiveTheTotalsCountedAfterThem() {
        PoolSnapshot empty = TwoOrgFleet.empty().build();
        PoolFacts kept = PoolFacts.of(empty);
        for (Lease l : FLEET.leases().values()) {
            kept.add(l, 1, FLEET);
        }
        assertThat(kept.summarise(FLEET, TENANTS, usage(FLEET))).isEqualTo(fresh(FLEET));

        PoolSnapshot after = released(FLEET, TwoOrgFleet.NLP_TRAIN, TwoOrgFleet.CI_NOTEBOOK);
        kept.add(TwoOrgFleet.NLP_TRAIN, -1, after);
        kept.add(TwoOrgFleet.CI_NOTEBOOK, -1, after);

        List<PoolFact> facts = kept.summarise(after, TENANTS, usage(after));
        assertThat(facts).isEqualTo(fresh(after));
        assertThat(pool(facts, "training").freeMilliByModel()).isEqualTo(Map.of(H100, 3000L, A100, 1000L));
    }

    @Test
    void aShareOnACardMissingFromTheInventoryChangesNoTotal() {
        PoolFacts facts = PoolFacts.of(FLEET);
        Lease onGoneCard = Leases.lease("nlp-old").tenant("nlp").pool("training").whole("fra-h100-09-gpu0").build();

        facts.add(onGoneCard, 1, FLEET);

        assertThat(facts.summarise(FLEET, TENANTS, usage(FLEET))).isEqualTo(fresh(FLEET));
    }

    @Test
    void aPoolLendsItsOrganisationsIdleGuaranteePlusUnguaranteedCapacityLessWhatIsBorrowedNeverBelowZero() {
        List<PoolFact> facts = fresh(FLEET);

        assertThat(pool(facts, "training").lendableMilli())
                .as("research lends 1,000, every card is guaranteed to research, vision and search borrow 2,000")
                .isZero();
        assertThat(pool(facts, "inference").lendableMilli())
                .as("search's guarantee is a team's, carved from products' (none): both L40S are nobody's")
                .isEqualTo(2000);
    }

    @Test
    void aBorrowersModelRowDoesNotCountItsBorrowingAgainstThePoolASecondTime() {
        Lease searchEval = Leases.lease("search-eval").tenant("search").pool("training").borrowed(true)
                .share("fra-h100-01-gpu3", 500).build();
        PoolSnapshot s = released(FLEET, TwoOrgFleet.VISION_FT, TwoOrgFleet.SEARCH_BATCH).toBuilder().version(3)
                .lease(searchEval).quota(new io.gpupool.domain.tenancy.Quota("search", "training", H100, 0, 1, 0)).build();

        // research: subtree 2,500, headroom 3,500; nlp withholds 500, vision its whole 2,000: lends 1,000
        assertThat(pool(fresh(s), "training").lendableMilli()).as("1,000 lent less search's borrowed half H100")
                .isEqualTo(500);
    }

    @Test
    void releasingTheBorrowedLeasesRecountsOnlyTheTouchedTenantsLending() {
        PoolFacts kept = PoolFacts.of(FLEET);
        Map<String, List<TenantUsageFact>> before = usage(FLEET);
        kept.summarise(FLEET, TENANTS, before);
        PoolSnapshot after = released(FLEET, TwoOrgFleet.VISION_FT, TwoOrgFleet.SEARCH_BATCH);
        kept.add(TwoOrgFleet.VISION_FT, -1, after);
        kept.add(TwoOrgFleet.SEARCH_BATCH, -1, after);

        List<PoolFact> facts = kept.summarise(after, TENANTS, before, usage(after),
                List.of("vision", "research", "search", "products", "a-tenant-deleted-since"));

        assertThat(facts).isEqualTo(fresh(after));
        // research: subtree 2,500, headroom 3,500; nlp withholds 500, vision its whole 2,000: lends 1,000
        assertThat(pool(facts, "training").lendableMilli()).isEqualTo(1000);
        assertThat(pool(facts, "training").freeMilli()).isEqualTo(3500);
    }

    @Test
    void aCopyKeepsCountingOnItsOwn() {
        PoolFacts original = PoolFacts.of(FLEET);
        original.summarise(FLEET, TENANTS, usage(FLEET));
        PoolFacts copy = original.copy();
        PoolSnapshot after = released(FLEET, TwoOrgFleet.SEARCH_SERVE);

        copy.add(TwoOrgFleet.SEARCH_SERVE, -1, after);

        assertThat(copy.summarise(after, TENANTS, usage(FLEET), usage(after), List.of("search", "products")))
                .isEqualTo(fresh(after));
        assertThat(original.summarise(FLEET, TENANTS, usage(FLEET), usage(FLEET), List.of())).isEqualTo(fresh(FLEET));
    }

    @ParameterizedTest(name = "seed {0}: totals and lending kept commit by commit equal those counted afresh")
    @ValueSource(longs = {21, 22, 23})
    void totalsAndLendingKeptCommitByCommitEqualThoseCountedAfresh(long seed) {
        LeaseChurn churn = new LeaseChurn(seed);
        PoolSnapshot s = churn.fleet();
        Map<String, TenantFact> tenants = TenantFacts.resolve(s);
        Map<String, List<TenantUsageFact>> rows = TenantFacts.usage(UsageLedger.of(s, tenants), s, tenants);
        PoolFacts kept = PoolFacts.of(s);
        kept.summarise(s, tenants, rows);
        int incremental = 0;
        for (int step = 0; step < 250; step++) {
            PoolSnapshot before = s;
            s = churn.step(s);
            Map<String, List<TenantUsageFact>> after = TenantFacts.usage(UsageLedger.of(s, tenants), s, tenants);
            List<PoolFact> facts;
            if (s.delta().inventoryChanged()) { // a card's health changed: capacity is counted afresh, as the tracker does
                kept = PoolFacts.of(s);
                facts = kept.summarise(s, tenants, after);
            } else {
                for (Lease l : s.delta().leasesRemoved()) {
                    kept.add(l, -1, s);
                }
                for (Lease l : s.delta().leasesAdded()) {
                    kept.add(l, 1, s);
                }
                Set<String> touched = new HashSet<>();
                for (String id : tenants.keySet()) {
                    if (!Objects.equals(rows.get(id), after.get(id))) {
                        touched.add(id);
                    }
                }
                facts = kept.summarise(s, tenants, rows, after, touched);
                incremental++;
            }
            assertThat(facts).as("pool facts at step %d (from version %d)", step, before.version())
                    .isEqualTo(PoolFacts.of(s).summarise(s, tenants, after));
            rows = after;
        }
        assertThat(incremental).isGreaterThan(200);
    }
}
