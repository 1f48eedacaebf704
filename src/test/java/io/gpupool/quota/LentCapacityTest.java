package io.gpupool.quota;

import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lent capacity per quota on an 8-H100 pool "lab": research (an org with team nlp) and two
 * independent tenants, ads and search, hold guarantees; leases borrow by name or from the pool.
 */
class LentCapacityTest {
    static final Instant NOW = Instant.parse("2027-01-04T00:00:00Z");
    static final Quota RESEARCH = new Quota("research", "lab", Quota.ANY_MODEL, 2, 0, 2);
    static final Quota NLP = new Quota("nlp", "lab", Quota.ANY_MODEL, 1, 2, 0);
    static final Quota ADS = new Quota("ads", "lab", Quota.ANY_MODEL, 2, 0, 2);
    static final Quota SEARCH = new Quota("search", "lab", Quota.ANY_MODEL, 2, 0, 2);
    static final Quota ADS_H100 = new Quota("ads", "lab", "H100-SXM-80G", 2, 0, 2);

    private final PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(NOW);
    private int gpu;

    LentCapacityTest() {
        b.pool(new Pool("lab", "lab", PoolTier.TRAINING, "default", false, null));
        b.tenant(new Tenant("research", "research", null, null));
        b.tenant(new Tenant("nlp", "nlp", "research", null));
        b.tenant(new Tenant("ads", "ads", null, null));
        b.tenant(new Tenant("search", "search", null, null));
        b.tenant(new Tenant("rl", "rl", null, null));
        Fleets.nodeOf(b, Fleets.node("n1"), 8, g -> g.model("H100-SXM-80G").pool("lab"));
    }

    private LentCapacityTest quotas(Quota... quotas) {
        for (Quota q : quotas) {
            b.quota(q);
        }
        return this;
    }

    /** A lease of {@code tenant} on the next {@code cards} cards, borrowed from {@code lender} unless null. */
    private LentCapacityTest lease(String tenant, int cards, String lender) {
        Leases.Builder lease = Leases.lease(tenant + "-" + gpu).tenant(tenant).pool("lab").createdAt(NOW)
                .borrowed(lender != null).lender(lender);
        for (int i = 0; i < cards; i++) {
            lease.share("n1-gpu" + gpu++, 1000);
        }
        b.lease(lease.build());
        return this;
    }

    private long lent(Quota q) {
        return LentCapacity.of(b.build()).of(q);
    }

    @Test
    void anAncestorNamedAsLenderLendsExactlyWhatItsTeamBorrows() {
        quotas(RESEARCH, NLP).lease("nlp", 1, null).lease("nlp", 2, "research");

        assertThat(lent(RESEARCH)).isEqualTo(2000);
        assertThat(lent(NLP)).isZero();
    }

    @Test
    void borrowingFromThePoolIsSharedInProportionToIdleGuarantees() {
        quotas(ADS, SEARCH).lease("search", 1, null).lease("rl", 2, "lab");

        // idle: ads 2, search 1 → ads lends 2 × 2/3, search 2 × 1/3
        assertThat(lent(ADS)).isEqualTo(1333);
        assertThat(lent(SEARCH)).isEqualTo(666);
    }

    @Test
    void nobodyLendsMoreThanItsIdleGuarantee() {
        quotas(ADS, SEARCH).lease("search", 1, null).lease("rl", 6, "lab");

        assertThat(lent(ADS)).isEqualTo(2000);
        assertThat(lent(SEARCH)).isEqualTo(1000);
    }

    @Test
    void aQuotaWhoseTeamsHoldQuotasIsNotCountedTwiceForPoolBorrowing() {
        quotas(RESEARCH, NLP, ADS).lease("rl", 1, "lab");

        assertThat(lent(RESEARCH)).as("its guarantee includes nlp's").isZero();
        // idle at the bottom: nlp 1, ads 2 → nlp 1 × 1/3, ads 1 × 2/3
        assertThat(lent(NLP)).isEqualTo(333);
        assertThat(lent(ADS)).isEqualTo(666);
    }

    @Test
    void aModelQuotaLendsOnlyWhatIsBorrowedOfItsModel() {
        quotas(ADS_H100).lease("rl", 1, "lab");

        assertThat(lent(ADS_H100)).isEqualTo(1000);
        assertThat(lent(ADS)).as("no such quota").isZero();
    }

    @Test
    void aTenantDoesNotLendToItselfWhatItBorrowsFromThePool() {
        quotas(ADS, SEARCH).lease("ads", 1, "lab").lease("rl", 1, "lab");

        // idle: ads 1, search 2; ads's own borrowing is not lent by ads: others borrow 1 there
        assertThat(lent(ADS)).isEqualTo(333);
        assertThat(lent(SEARCH)).isEqualTo(1333);
    }

    @Test
    void nothingBorrowedNothingLent() {
        quotas(ADS, SEARCH).lease("ads", 2, null);

        assertThat(lent(ADS)).isZero();
        assertThat(lent(SEARCH)).isZero();
    }
}
