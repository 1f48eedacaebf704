package io.gpupool.policy.fact;

import io.gpupool.snapshot.PoolSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tenant lineage and the order usage rows are worked out in, on {@link TwoOrgFleet}'s tree
 * (research: nlp with nlp-ci below it, and vision; products: search), listed parents first.
 */
class TenantFactsTest {
    private static final PoolSnapshot FLEET = TwoOrgFleet.withLeases();
    private static final Map<String, TenantFact> TENANTS = TenantFacts.resolve(FLEET);
    private static final Map<String, List<TenantUsageFact>> USAGE =
            TenantFacts.usage(UsageLedger.of(FLEET, TENANTS), FLEET, TENANTS);

    @Test
    void eachTenantKnowsItsOrganisationItsDepthAndItsAncestorsNearestFirst() {
        assertThat(TENANTS.get("nlp-ci"))
                .isEqualTo(new TenantFact("nlp-ci", "NLP CI", "nlp", "research", 2, List.of("nlp", "research")));
        assertThat(TENANTS.get("vision"))
                .isEqualTo(new TenantFact("vision", "Vision team", "research", "research", 1, List.of("research")));
        assertThat(TENANTS.get("products"))
                .isEqualTo(new TenantFact("products", "Acme Products", null, "products", 0, List.of()));
        assertThat(TENANTS.get("products").isOrganisation()).isTrue();
        assertThat(TENANTS.get("search").isOrganisation()).isFalse();
    }

    @Test
    void tenantsAreResolvedInTheSnapshotsOrder() {
        assertThat(TENANTS.keySet()).containsExactly("research", "nlp", "nlp-ci", "vision", "products", "search");
    }

    @Test
    void aSnapshotWithoutTenantsResolvesToNoTenantsAndNoRows() {
        PoolSnapshot none = PoolSnapshot.builder().version(1).takenAt(TwoOrgFleet.T0).build();

        Map<String, TenantFact> tenants = TenantFacts.resolve(none);

        assertThat(tenants).isEmpty();
        assertThat(TenantFacts.usage(UsageLedger.of(none, tenants), none, tenants)).isEmpty();
        assertThat(TenantFacts.children(tenants)).isEmpty();
    }

    @Test
    void eachParentListsItsDirectChildrenInTenantOrderAndALeafHasNoEntry() {
        Map<String, List<String>> children = TenantFacts.children(TENANTS);

        assertThat(children).containsOnlyKeys("research", "nlp", "products");
        assertThat(children.get("research")).as("nlp-ci is a grandchild, not a child").containsExactly("nlp", "vision");
        assertThat(children.get("nlp")).containsExactly("nlp-ci");
        assertThat(children.get("products")).containsExactly("search");
    }

    @Test
    void deepestFirstPutsChildrenBeforeTheirParentsKeepsTheGivenOrderWithinALevelAndSkipsUnknownIds() {
        List<TenantFact> order = TenantFacts.deepestFirst(TENANTS,
                List.of("research", "search", "deleted-team", "nlp-ci", "nlp", "products"));

        assertThat(order).extracting(TenantFact::tenantId)
                .containsExactly("nlp-ci", "search", "nlp", "research", "products");
    }

    @Test
    void rowsComeInTenantOrderThoughEachParentIsWorkedOutAfterTheChildrenWhoseReservesItCounts() {
        assertThat(USAGE.keySet()).containsExactly("research", "nlp", "nlp-ci", "vision", "products", "search");
        TenantUsageFact research = USAGE.get("research").get(0);
        TenantUsageFact nlp = USAGE.get("nlp").get(0);

        assertThat(nlp.withheldBelowMilli()).as("nlp-ci's idle half GPU, which it lends to nobody").isEqualTo(500);
        assertThat(research.withheldBelowMilli()).as("nlp's subtree keeps 500, vision 1000").isEqualTo(1500);
    }

    @Test
    void aGrandchildSeesItsParentThenItsOrganisationInEveryPoolWithWhatTheOtherSubtreesWithhold() {
        List<AncestorGuaranteeFact> facts = TenantFacts.ancestorGuarantees(TENANTS.get("nlp-ci"),
                TenantFacts.children(TENANTS), USAGE);

        assertThat(facts).containsExactly(
                new AncestorGuaranteeFact("nlp-ci", "training", "nlp", 1, 500, 0),
                new AncestorGuaranteeFact("nlp-ci", "training", "research", 2, 2500, 1000),
                new AncestorGuaranteeFact("nlp-ci", "inference", "nlp", 1, 0, 0),
                new AncestorGuaranteeFact("nlp-ci", "inference", "research", 2, 0, 0));
        assertThat(facts.get(1).availableMilli()).as("research's 2,500 idle less vision's reserve").isEqualTo(1500);
    }

    @Test
    void aTeamDoesNotCountItsOwnReserveAgainstItselfOnlyItsSiblings() {
        Map<String, List<String>> children = TenantFacts.children(TENANTS);

        assertThat(TenantFacts.ancestorGuarantees(TENANTS.get("vision"), children, USAGE)).first()
                .as("nlp's subtree keeps 500 of research's headroom")
                .isEqualTo(new AncestorGuaranteeFact("vision", "training", "research", 1, 2500, 500));
        assertThat(TenantFacts.ancestorGuarantees(TENANTS.get("nlp"), children, USAGE)).first()
                .as("vision keeps 1,000")
                .isEqualTo(new AncestorGuaranteeFact("nlp", "training", "research", 1, 2500, 1000));
    }

    @Test
    void aTeamWhoseOrganisationAlreadyBorrowsSeesNegativeHeadroom() {
        List<AncestorGuaranteeFact> facts = TenantFacts.ancestorGuarantees(TENANTS.get("search"),
                TenantFacts.children(TENANTS), USAGE);

        assertThat(facts).containsExactly(
                new AncestorGuaranteeFact("search", "training", "products", 1, -1000, 0),
                new AncestorGuaranteeFact("search", "inference", "products", 1, -1000, 0));
    }

    @Test
    void anOrganisationHasNoAncestorGuaranteesAndAnAncestorWithoutRowsOffersNothing() {
        Map<String, List<String>> children = TenantFacts.children(TENANTS);
        Map<String, List<TenantUsageFact>> withoutResearch = new java.util.LinkedHashMap<>(USAGE);
        withoutResearch.remove("research");

        assertThat(TenantFacts.ancestorGuarantees(TENANTS.get("research"), children, USAGE)).isEmpty();
        assertThat(TenantFacts.ancestorGuarantees(TENANTS.get("vision"), children, withoutResearch)).first()
                .isEqualTo(new AncestorGuaranteeFact("vision", "training", "research", 1, 0, 500));
    }
}
