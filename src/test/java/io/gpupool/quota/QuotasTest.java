package io.gpupool.quota;

import io.gpupool.domain.tenancy.Quota;
import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How a quota an admin states becomes the model's record, what it may not say, and how its view shows over-commitment. */
class QuotasTest {
    private static final Set<String> TENANTS = Set.of("research", "search", "nlp");
    private static final Set<String> POOLS = Set.of("training", "lab");

    private final FieldChecks check = new FieldChecks();

    private List<Quota> resolve(QuotaSpec... specs) {
        return Quotas.resolve(List.of(specs), TENANTS, POOLS, check);
    }

    private List<String> errors() {
        try {
            check.throwIfAny("quotas");
            return List.of();
        } catch (ProblemException e) {
            return e.errors();
        }
    }

    @Test
    void aQuotaThatStatesOnlyItsGuaranteeLendsAllOfItBorrowsNothingAndCoversEveryModel() {
        Quota q = resolve(new QuotaSpec("research", "lab", null, 8, null, null)).get(0);

        assertThat(q.model()).isEqualTo(Quota.ANY_MODEL);
        assertThat(q.guaranteedGpus()).isEqualTo(8);
        assertThat(q.borrowingLimit()).isZero();
        assertThat(q.lendingLimit()).as("lending defaults to the whole guarantee").isEqualTo(8);
        assertThat(q.key()).isEqualTo("research/lab/*");
        assertThat(errors()).isEmpty();
    }

    @Test
    void aBlankModelMeansEveryModel() {
        assertThat(resolve(new QuotaSpec("research", "lab", "  ", 2, 0, 0)).get(0).model()).isEqualTo(Quota.ANY_MODEL);
    }

    @Test
    void aQuotaWithNoGuaranteeMayStillBorrow() {
        Quota q = resolve(new QuotaSpec("search", "lab", null, null, 8, null)).get(0);

        assertThat(q.guaranteedGpus()).isZero();
        assertThat(q.borrowingLimit()).isEqualTo(8);
        assertThat(q.lendingLimit()).isZero();
        assertThat(errors()).isEmpty();
    }

    @Test
    void aLendingLimitEqualToTheGuaranteeIsAccepted() {
        resolve(new QuotaSpec("research", "lab", null, 8, 0, 8), new QuotaSpec("nlp", "lab", null, 4, 0, 0));

        assertThat(errors()).isEmpty();
    }

    @Test
    void aQuotaCannotLendMoreThanItIsGuaranteed() {
        resolve(new QuotaSpec("research", "lab", null, 8, 0, 9));

        assertThat(errors()).containsExactly("quotas[0].lendingLimit: must be between 0 and 8, was 9");
    }

    @Test
    void negativeLimitsAreRefusedEachWithItsField() {
        resolve(new QuotaSpec("research", "lab", null, 4, -1, -2));

        assertThat(errors()).containsExactly(
                "quotas[0].borrowingLimit: must be >= 0, was -1",
                "quotas[0].lendingLimit: must be between 0 and 4, was -2");
    }

    @Test
    void aNegativeGuaranteeIsRefusedAndLendsNothing() {
        resolve(new QuotaSpec("research", "lab", null, -3, null, null));

        assertThat(errors()).contains("quotas[0].guaranteedGpus: must be >= 0, was -3")
                .anyMatch(e -> e.startsWith("quotas[0].lendingLimit: must be between 0 and 0"));
    }

    @Test
    void unknownTenantsAndPoolsAreNamedWithTheirIndex() {
        resolve(new QuotaSpec("research", "lab", null, 1, 0, 0), new QuotaSpec("ads", "gpu-farm", null, 1, 0, 0));

        assertThat(errors()).containsExactly(
                "quotas[1].tenant: unknown tenant 'ads'",
                "quotas[1].pool: unknown pool 'gpu-farm'");
    }

    @Test
    void twoQuotasForTheSameTenantPoolAndModelAreADuplicate() {
        resolve(new QuotaSpec("research", "lab", null, 4, 0, 4),
                new QuotaSpec("research", "lab", "*", 2, 0, 2),
                new QuotaSpec("research", "lab", "H100-SXM-80G", 2, 0, 2));

        assertThat(errors()).containsExactly("quotas[1]: duplicate quota for research/lab/*");
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        List<Quota> quotas = resolve(new QuotaSpec("ads", "lab", null, 1, -1, 5), new QuotaSpec("nlp", "nowhere", null, 1, 0, 1));

        assertThat(quotas).as("records are still made, for the caller to report").hasSize(2);
        assertThat(errors()).hasSize(4);
    }

    @Test
    void aQuotasViewNamesTheModelsOverCommitmentBeforeThePools() {
        PoolCommitment h100 = PoolCommitment.of("lab", "H100-SXM-80G", 8, 10);
        PoolCommitment all = PoolCommitment.of("lab", "*", 16, 20);
        Quota q = new Quota("research", "lab", "H100-SXM-80G", 10, 0, 10);

        QuotaView view = QuotaView.of(q, Map.of("lab/H100-SXM-80G", h100, "lab/*", all));

        assertThat(view.overcommitted()).isEqualTo(h100);
        assertThat(view.overcommitted().overByGpus()).isEqualTo(2);
    }

    @Test
    void aModelQuotaInAnOverCommittedPoolShowsThePoolsCommitmentWhenItsModelFits() {
        PoolCommitment h100 = PoolCommitment.of("lab", "H100-SXM-80G", 8, 8);
        PoolCommitment all = PoolCommitment.of("lab", "*", 16, 20);
        Quota q = new Quota("research", "lab", "H100-SXM-80G", 8, 0, 8);

        QuotaView view = QuotaView.of(q, Map.of("lab/H100-SXM-80G", h100, "lab/*", all));

        assertThat(view.overcommitted()).isEqualTo(all);
    }

    @Test
    void aQuotaInAPoolThatKeepsItsPromisesShowsNoOverCommitment() {
        Quota q = new Quota("research", "lab", Quota.ANY_MODEL, 8, 2, 4);

        QuotaView view = QuotaView.of(q, Map.of("lab/*", PoolCommitment.of("lab", "*", 8, 8),
                "training/*", PoolCommitment.of("training", "*", 8, 100)));

        assertThat(view.overcommitted()).isNull();
        assertThat(view).isEqualTo(new QuotaView("research", "lab", "*", 8, 2, 4, null));
    }

    @Test
    void aWriteThatRaisesAPoolsOverCommitmentIsRefusedNamingTheExcess() {
        Map<String, PoolCommitment> before = Map.of("lab/*", PoolCommitment.of("lab", "*", 8, 8));
        Map<String, PoolCommitment> after = Map.of("lab/*", PoolCommitment.of("lab", "*", 8, 12));

        assertThatThrownBy(() -> Quotas.refuseOvercommitment(before, after,
                List.of(new QuotaSpec("nlp", "lab", null, 4, 0, 4)), "PUT /quotas", "say overcommit: true"))
                .isInstanceOf(ProblemException.class)
                .hasMessageContaining("guarantees in pool lab would total 12 GPUs, 4 more than its 8 GPUs")
                .hasMessageContaining("say overcommit: true");
    }

    @Test
    void aWriteThatSaysOvercommitMayRaiseItsPoolsGuaranteesBeyondItsCards() {
        Map<String, PoolCommitment> before = Map.of("lab/*", PoolCommitment.of("lab", "*", 8, 8));
        Map<String, PoolCommitment> after = Map.of("lab/*", PoolCommitment.of("lab", "*", 8, 12));

        Quotas.refuseOvercommitment(before, after,
                List.of(new QuotaSpec("nlp", "lab", null, 4, 0, 4, true)), "PUT /quotas", "hint");
    }
}
