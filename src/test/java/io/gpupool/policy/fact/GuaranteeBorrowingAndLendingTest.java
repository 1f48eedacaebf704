package io.gpupool.policy.fact;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.gpupool.policy.scenario.ScenarioFixture;
import io.gpupool.policy.scenario.ScenarioSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Quota arithmetic as rules read it, in milli-GPU: headroom of a guarantee, what a request takes
 * beyond it, what is left to borrow, and what of an idle guarantee others may borrow under lending
 * limits at every level of a tenant tree.
 */
class GuaranteeBorrowingAndLendingTest {
    private static SnapshotFacts facts;

    @BeforeAll
    static void fixture() throws Exception {
        ScenarioSpec spec = new ObjectMapper(new YAMLFactory()).registerModule(new JavaTimeModule())
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).readValue("""
                given:
                  pools: [{id: training, tier: TRAINING}]
                  tenants: [{id: acme}, {id: vision, parent: acme}, {id: nlp, parent: acme}, {id: nlp-ci, parent: nlp}]
                  quotas:
                    - {tenant: acme, pool: training, guaranteed: 8, borrowingLimit: 2}
                    - {tenant: vision, pool: training, guaranteed: 4, borrowingLimit: 1, lendingLimit: 1}
                    - {tenant: nlp, pool: training, guaranteed: 3, lendingLimit: 3}
                    - {tenant: nlp-ci, pool: training, guaranteed: 2, lendingLimit: 0}
                  nodes:
                    - {id: dgx-1, gpus: 8, model: H100, nvlink: true, pool: training}
                  leases:
                    - {id: v1, tenant: vision, pool: training, node: dgx-1, gpus: 1}
                    - {id: c1, tenant: nlp-ci, pool: training, node: dgx-1, gpus: 1, milli: 500}
                """, ScenarioSpec.class);
        facts = ScenarioFixture.facts(spec);
    }

    private static TenantUsageFact row(String tenant) {
        return facts.usage().stream().filter(u -> u.tenantId().equals(tenant) && u.isAnyModel())
                .findFirst().orElseThrow();
    }

    private static AncestorGuaranteeFact ancestor(String tenant, String ancestor) {
        TenantFact t = facts.tenants().stream().filter(f -> f.tenantId().equals(tenant)).findFirst().orElseThrow();
        return facts.ancestorGuarantees(t).stream().filter(a -> a.ancestorId().equals(ancestor))
                .findFirst().orElseThrow();
    }

    private static TenantUsageFact usage(long guaranteed, long borrowingLimit, long lendingLimit, long subtreeUsed,
                                         long borrowed, long withheldBelow) {
        return new TenantUsageFact("t", "t", "p", "*", guaranteed, borrowingLimit, lendingLimit, subtreeUsed,
                borrowed, subtreeUsed, withheldBelow);
    }

    @ParameterizedTest(name = "{0}: headroom {7}, lendable {8}, withheld {9}")
    @CsvSource(delimiter = '|', value = {
            "an idle guarantee is all lendable                 | 4000 | 0 | 4000 | 0    | 0 | 0    | 4000  | 4000 | 0",
            "the lending limit keeps the rest as a reserve     | 4000 | 0 | 1000 | 0    | 0 | 0    | 4000  | 1000 | 3000",
            "used guarantee is neither lendable nor withheld   | 4000 | 0 | 4000 | 3000 | 0 | 0    | 1000  | 1000 | 0",
            "a reserve larger than the idle part withholds all | 4000 | 0 | 1000 | 3500 | 0 | 0    | 500   | 500  | 0",
            "children's reserves are not lent by the parent    | 8000 | 0 | 8000 | 1000 | 0 | 2000 | 7000  | 5000 | 2000",
            "children withholding everything leave nothing     | 8000 | 0 | 8000 | 0    | 0 | 9000 | 8000  | 0    | 8000",
            "a borrowing tree has negative headroom, lends 0   | 4000 | 2000 | 4000 | 5000 | 1000 | 0 | -1000 | 0    | 0",
            "no quota at all lends and withholds nothing       | 0    | 0 | 0    | 0    | 0 | 0    | 0     | 0    | 0"})
    void headroomLendableAndWithheldAddUpToTheGuarantee(String scenario, long guaranteed, long borrowingLimit,
                                                        long lendingLimit, long used, long borrowed, long withheldBelow,
                                                        long headroom, long lendable, long withheld) {
        TenantUsageFact u = usage(guaranteed, borrowingLimit, lendingLimit, used, borrowed, withheldBelow);

        assertThat(u.headroomMilli()).isEqualTo(headroom);
        assertThat(u.lendableMilli()).isEqualTo(lendable);
        assertThat(u.withheldMilli()).isEqualTo(withheld);
        assertThat(u.lendableMilli() + u.withheldMilli()).as("idle guarantee is either lent or withheld")
                .isEqualTo(Math.max(0, headroom));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "a request within the headroom exceeds nothing          | 4000 | 1000 | 3 | 0",
            "a request just filling the headroom exceeds nothing    | 4000 | 1000 | 3 | 0",
            "a request one GPU beyond the headroom exceeds by one   | 4000 | 1000 | 4 | 1000",
            "a tree already borrowing exceeds by the whole request  | 4000 | 5000 | 2 | 2000",
            "a tenant with no guarantee exceeds by the whole request | 0   | 0    | 1 | 1000"})
    void excessIsWhatARequestTakesBeyondTheRemainingGuarantee(String scenario, long guaranteed, long used, int gpus,
                                                             long excess) {
        TenantUsageFact u = usage(guaranteed, 0, guaranteed, used, 0, 0);

        assertThat(u.excessMilli(RequestFact.whole("r", "t", "training", gpus))).isEqualTo(excess);
    }

    @Test
    void borrowRoomShrinksWithBorrowingAndNeverGoesNegative() {
        assertThat(usage(4000, 2000, 4000, 4000, 0, 0).borrowRoomMilli()).isEqualTo(2000);
        assertThat(usage(4000, 2000, 4000, 5500, 1500, 0).borrowRoomMilli()).isEqualTo(500);
        assertThat(usage(4000, 2000, 4000, 7000, 3000, 0).borrowRoomMilli()).as("over the limit").isZero();
        assertThat(usage(4000, 0, 4000, 4000, 0, 0).borrowRoomMilli()).as("no borrowing limit").isZero();
    }

    @Test
    void aTeamsLendingLimitWithholdsTheRestOfItsIdleGuarantee() {
        TenantUsageFact vision = row("vision");

        assertThat(vision.headroomMilli()).isEqualTo(3000);
        assertThat(vision.lendableMilli()).isEqualTo(1000);
        assertThat(vision.withheldMilli()).isEqualTo(2000);
        assertThat(vision.withheldBelowMilli()).as("a leaf has nobody below it").isZero();
    }

    @Test
    void aGrandchildsReserveIsWithheldByEveryAncestorOnTheWayUp() {
        TenantUsageFact ci = row("nlp-ci");
        TenantUsageFact nlp = row("nlp");

        assertThat(ci.headroomMilli()).isEqualTo(1500);
        assertThat(ci.withheldMilli()).as("lending limit 0: its idle guarantee is all reserve").isEqualTo(1500);
        assertThat(nlp.subtreeUsedMilli()).as("nlp's subtree counts nlp-ci's half GPU").isEqualTo(500);
        assertThat(nlp.withheldBelowMilli()).isEqualTo(1500);
        assertThat(nlp.lendableMilli()).isEqualTo(3000 - 500 - 1500);
        assertThat(nlp.withheldMilli()).isEqualTo(1500);
    }

    @Test
    void anOrganisationLendsOnlyWhatNoTeamWithholds() {
        TenantUsageFact acme = row("acme");

        assertThat(acme.subtreeUsedMilli()).isEqualTo(1500);
        assertThat(acme.headroomMilli()).isEqualTo(6500);
        assertThat(acme.withheldBelowMilli()).as("vision keeps 2 GPUs, nlp 1.5").isEqualTo(3500);
        assertThat(acme.lendableMilli()).isEqualTo(3000);
    }

    @Test
    void aTeamMayUseItsParentsIdleGuaranteeLessWhatItsSiblingsWithhold() {
        AncestorGuaranteeFact forVision = ancestor("vision", "acme");
        AncestorGuaranteeFact forNlp = ancestor("nlp", "acme");

        assertThat(forVision.distance()).isEqualTo(1);
        assertThat(forVision.headroomMilli()).isEqualTo(6500);
        assertThat(forVision.withheldMilli()).as("nlp's subtree keeps 1.5 GPUs").isEqualTo(1500);
        assertThat(forVision.availableMilli()).isEqualTo(5000);
        assertThat(forNlp.withheldMilli()).as("vision keeps 2 GPUs").isEqualTo(2000);
        assertThat(forNlp.availableMilli()).isEqualTo(4500);
    }

    @Test
    void aGrandchildSeesEachAncestorNearestFirstWithWhatIsWithheldAlongTheWay() {
        AncestorGuaranteeFact parent = ancestor("nlp-ci", "nlp");
        AncestorGuaranteeFact grandparent = ancestor("nlp-ci", "acme");

        assertThat(parent.distance()).isEqualTo(1);
        assertThat(parent.withheldMilli()).as("nlp-ci has no siblings").isZero();
        assertThat(parent.availableMilli()).isEqualTo(2500);
        assertThat(grandparent.distance()).isEqualTo(2);
        assertThat(grandparent.withheldMilli()).as("vision, nlp's sibling, keeps 2 GPUs").isEqualTo(2000);
        assertThat(grandparent.availableMilli()).isEqualTo(6500 - 2000);
    }

    @Test
    void aPoolLendsWhatItsOrganisationsLendAndNothingOfTheTeamsReserves() {
        PoolFact training = facts.pools().get(0);

        assertThat(training.capacityMilli()).isEqualTo(8000);
        assertThat(training.freeMilli()).isEqualTo(8000 - 1500);
        assertThat(training.lendableMilli()).as("acme lends 3 of its 6.5 idle GPUs; every card is guaranteed")
                .isEqualTo(3000);
    }

    @Test
    void anOrganisationHasNoAncestorToBorrowFrom() {
        TenantFact acme = facts.tenants().stream().filter(f -> f.tenantId().equals("acme")).findFirst().orElseThrow();

        assertThat(acme.isOrganisation()).isTrue();
        assertThat(acme.depth()).isZero();
        assertThat(facts.ancestorGuarantees(acme)).isEmpty();
    }

    @Test
    void aGrandchildKnowsItsOrganisationAndLineage() {
        TenantFact ci = facts.tenants().stream().filter(f -> f.tenantId().equals("nlp-ci")).findFirst().orElseThrow();

        assertThat(ci.orgId()).isEqualTo("acme");
        assertThat(ci.depth()).isEqualTo(2);
        assertThat(ci.ancestors()).containsExactly("nlp", "acme");
        assertThat(ci.descendsFrom("acme")).isTrue();
        assertThat(ci.descendsFrom("vision")).isFalse();
    }
}
