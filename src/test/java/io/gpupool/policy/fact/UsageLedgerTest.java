package io.gpupool.policy.fact;

import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.SnapshotDelta;
import io.gpupool.testing.LeaseChurn;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static io.gpupool.policy.fact.TwoOrgFleet.A100;
import static io.gpupool.policy.fact.TwoOrgFleet.H100;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The usage rows of {@link TwoOrgFleet}'s tree, worked out by hand, and a ledger kept lease by lease
 * equal to one counted afresh. Rows read (tenant, org, pool, model, guaranteed, borrowing limit,
 * lending limit, used, borrowed, subtree used, withheld below), all in milli-GPU.
 */
class UsageLedgerTest {
    private static final PoolSnapshot FLEET = TwoOrgFleet.withLeases();
    private static final Map<String, TenantFact> TENANTS = TenantFacts.resolve(FLEET);

    private static Map<String, List<TenantUsageFact>> rows(UsageLedger ledger, PoolSnapshot s) {
        return TenantFacts.usage(ledger, s, TENANTS);
    }

    private static TenantUsageFact row(Map<String, List<TenantUsageFact>> rows, String tenant, String pool, String model) {
        return rows.get(tenant).stream().filter(u -> u.poolId().equals(pool) && u.model().equals(model))
                .findFirst().orElseThrow(() -> new AssertionError("no " + model + " row in " + pool + " for " + tenant));
    }

    private static TenantUsageFact usage(String tenant, String org, String pool, String model, long guaranteed,
                                         long borrowingLimit, long lendingLimit, long used, long borrowed, long subtree,
                                         long withheldBelow) {
        return new TenantUsageFact(tenant, org, pool, model, guaranteed, borrowingLimit, lendingLimit, used, borrowed,
                subtree, withheldBelow);
    }

    @Test
    void eachTenantsAllModelsRowInTrainingCountsItsOwnUseItsBorrowingAndItsWholeSubtree() {
        Map<String, List<TenantUsageFact>> rows = rows(UsageLedger.of(FLEET, TENANTS), FLEET);

        assertThat(row(rows, "nlp-ci", "training", "*")).as("half an A100, lends nothing: 500 withheld")
                .isEqualTo(usage("nlp-ci", "research", "training", "*", 1000, 0, 0, 500, 0, 500, 0));
        assertThat(row(rows, "nlp", "training", "*")).as("two H100s of its own plus nlp-ci's half; nlp-ci withholds 500")
                .isEqualTo(usage("nlp", "research", "training", "*", 3000, 1000, 1000, 2000, 0, 2500, 500));
        assertThat(row(rows, "vision", "training", "*")).as("one borrowed H100")
                .isEqualTo(usage("vision", "research", "training", "*", 2000, 0, 0, 1000, 1000, 1000, 0));
        assertThat(row(rows, "research", "training", "*")).as("no lease of its own; nlp withholds 500, vision 1000")
                .isEqualTo(usage("research", "research", "training", "*", 6000, 2000, 3000, 0, 0, 3500, 1500));
        assertThat(row(rows, "search", "training", "*")).as("a borrowed A100 without any quota here")
                .isEqualTo(usage("search", "products", "training", "*", 0, 0, 0, 1000, 1000, 1000, 0));
        assertThat(row(rows, "products", "training", "*")).as("the org counts search's A100 in its subtree only")
                .isEqualTo(usage("products", "products", "training", "*", 0, 0, 0, 0, 0, 1000, 0));
    }

    @Test
    void anOrganisationLendsItsHeadroomLessWhatItsTeamsWithhold() {
        TenantUsageFact research = row(rows(UsageLedger.of(FLEET, TENANTS), FLEET), "research", "training", "*");

        assertThat(research.headroomMilli()).isEqualTo(6000 - 3500);
        assertThat(research.lendableMilli()).as("2,500 idle, 1,500 kept by nlp and vision").isEqualTo(1000);
        assertThat(research.withheldMilli()).isEqualTo(1500);
    }

    @Test
    void everyTenantHasAnAllModelsRowInEveryPoolThenOneRowPerModelQuota() {
        Map<String, List<TenantUsageFact>> rows = rows(UsageLedger.of(FLEET, TENANTS), FLEET);

        assertThat(rows.get("nlp")).extracting(u -> u.poolId() + "/" + u.model())
                .containsExactly("training/*", "inference/*", "training/" + H100);
        assertThat(rows.get("research")).extracting(u -> u.poolId() + "/" + u.model())
                .containsExactly("training/*", "inference/*", "training/" + A100);
        assertThat(rows.get("vision")).extracting(u -> u.poolId() + "/" + u.model())
                .containsExactly("training/*", "inference/*");
        assertThat(row(rows, "vision", "inference", "*")).as("no quota, no lease there: a row of zeros all the same")
                .isEqualTo(usage("vision", "research", "inference", "*", 0, 0, 0, 0, 0, 0, 0));
        assertThat(row(rows, "search", "inference", "*"))
                .isEqualTo(usage("search", "products", "inference", "*", 1000, 1000, 1000, 1000, 0, 1000, 0));
    }

    @Test
    void aModelRowCountsOnlyCardsOfThatModelAndWithholdsNothing() {
        Map<String, List<TenantUsageFact>> rows = rows(UsageLedger.of(FLEET, TENANTS), FLEET);

        assertThat(row(rows, "nlp", "training", H100)).as("nlp-ci's half GPU is on an A100")
                .isEqualTo(usage("nlp", "research", "training", H100, 2000, 0, 0, 2000, 0, 2000, 0));
        assertThat(row(rows, "research", "training", A100))
                .as("the grandchild's half A100 is in research's subtree; search's A100 is another org's")
                .isEqualTo(usage("research", "research", "training", A100, 1000, 0, 0, 0, 0, 500, 0));
    }

    @Test
    void aModelQuotaAddedInALaterSnapshotHasItsRowFromThatSnapshotOnAndLosesItWhenRemoved() {
        UsageLedger ledger = UsageLedger.of(FLEET, TENANTS);
        PoolSnapshot withVisionH100 = FLEET.toBuilder().version(2).quota(new Quota("vision", "training", H100, 1, 0, 0))
                .build();
        PoolSnapshot removedAgain = withVisionH100.toBuilder().version(3).removeQuota("vision/training/" + H100).build();

        assertThat(rows(ledger, FLEET).get("vision")).hasSize(2);
        assertThat(row(rows(ledger, withVisionH100), "vision", "training", H100)).as("its borrowed H100 counts there too")
                .isEqualTo(usage("vision", "research", "training", H100, 1000, 0, 0, 1000, 1000, 1000, 0));
        assertThat(rows(ledger, removedAgain).get("vision")).extracting(TenantUsageFact::model).containsExactly("*", "*");
    }

    @Test
    void countingALeaseOutGivesTheRowsOfALedgerThatNeverSawItAndCountingItInAgainGivesTheFirst() {
        UsageLedger ledger = UsageLedger.of(FLEET, TENANTS);
        Map<String, List<TenantUsageFact>> before = rows(ledger, FLEET);
        PoolSnapshot released = FLEET.toBuilder().version(2).lease(io.gpupool.domain.lease.LeaseTransitions.end(
                TwoOrgFleet.CI_NOTEBOOK, io.gpupool.domain.lease.LeaseState.RELEASED)).build();

        ledger.add(TwoOrgFleet.CI_NOTEBOOK, -1, released, TENANTS);
        Map<String, List<TenantUsageFact>> out = rows(ledger, released);

        assertThat(out).isEqualTo(rows(UsageLedger.of(released, TENANTS), released));
        assertThat(row(out, "nlp", "training", "*").withheldBelowMilli()).as("nlp-ci now withholds its whole guarantee")
                .isEqualTo(1000);
        assertThat(row(out, "research", "training", A100).subtreeUsedMilli()).isZero();
        ledger.add(TwoOrgFleet.CI_NOTEBOOK, 1, FLEET, TENANTS);
        assertThat(rows(ledger, FLEET)).isEqualTo(before);
    }

    @Test
    void aShareOnACardMissingFromTheInventoryCountsInTheAllModelsRowButInNoModelsRow() {
        Lease onGoneCard = Leases.lease("nlp-old").tenant("nlp").pool("training").whole("fra-h100-09-gpu0").build();
        PoolSnapshot s = FLEET.toBuilder().version(2).lease(onGoneCard).build();

        Map<String, List<TenantUsageFact>> rows = rows(UsageLedger.of(s, TENANTS), s);

        assertThat(row(rows, "nlp", "training", "*").usedMilli()).isEqualTo(3000);
        assertThat(row(rows, "research", "training", "*").subtreeUsedMilli()).isEqualTo(4500);
        assertThat(row(rows, "nlp", "training", H100).usedMilli()).isEqualTo(2000);
    }

    @Test
    void aLeaseOfATenantOutsideTheTreeCountsForThatTenantAndNoOther() {
        Lease contractor = Leases.lease("ext-1").tenant("contractor").pool("training").whole("fra-h100-01-gpu3").build();
        PoolSnapshot s = FLEET.toBuilder().version(2).lease(contractor).build();
        UsageLedger ledger = UsageLedger.of(s, TENANTS);
        TenantFact outsider = new TenantFact("contractor", "contractor", null, "contractor", 0, List.of());

        List<TenantUsageFact> own = ledger.rowsFor(outsider, s, List.of(), id -> List.of());

        assertThat(own.get(0)).isEqualTo(usage("contractor", "contractor", "training", "*", 0, 0, 0, 1000, 0, 1000, 0));
        assertThat(rows(ledger, s)).as("no tenant of the tree sees it").isEqualTo(rows(UsageLedger.of(FLEET, TENANTS), FLEET));
    }

    @Test
    void aCopyCountsOnWithoutChangingTheOriginal() {
        UsageLedger original = UsageLedger.of(FLEET, TENANTS);
        UsageLedger copy = original.copy();
        Lease more = Leases.lease("vision-2").tenant("vision").pool("training").whole("fra-h100-01-gpu3").build();
        PoolSnapshot s = FLEET.toBuilder().version(2).lease(more).build();

        copy.add(more, 1, s, TENANTS);

        assertThat(rows(copy, s)).isEqualTo(rows(UsageLedger.of(s, TENANTS), s));
        assertThat(rows(original, FLEET)).isEqualTo(rows(UsageLedger.of(FLEET, TENANTS), FLEET));
    }

    @ParameterizedTest(name = "seed {0}: a ledger kept by each commit's lease changes equals one counted afresh")
    @ValueSource(longs = {11, 12, 13})
    void aLedgerKeptByEachCommitsLeaseChangesEqualsOneCountedAfresh(long seed) {
        LeaseChurn churn = new LeaseChurn(seed);
        PoolSnapshot s = churn.fleet();
        Map<String, TenantFact> tenants = TenantFacts.resolve(s);
        UsageLedger kept = UsageLedger.of(s, tenants);
        int changes = 0;
        for (int step = 0; step < 250; step++) {
            s = churn.step(s);
            SnapshotDelta delta = s.delta(); // one build per step: the delta from the step before
            for (Lease out : delta.leasesRemoved()) {
                kept.add(out, -1, s, tenants);
            }
            for (Lease in : delta.leasesAdded()) {
                kept.add(in, 1, s, tenants);
            }
            changes += delta.leasesRemoved().size() + delta.leasesAdded().size();
            assertThat(TenantFacts.usage(kept, s, tenants)).as("rows at step %d", step)
                    .isEqualTo(TenantFacts.usage(UsageLedger.of(s, tenants), s, tenants));
        }
        assertThat(changes).as("lease changes replayed").isGreaterThan(200);
    }
}
