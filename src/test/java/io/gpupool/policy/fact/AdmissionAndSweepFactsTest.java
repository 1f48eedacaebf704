package io.gpupool.policy.fact;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.snapshot.PoolSnapshot;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fact sets handed to policy for one admission and for a sweep. Organisation acme has team
 * vision, which has sub-team vision-3d; globex stands alone. Two pools, one node of two cards in
 * train, one lease of vision-3d.
 */
class AdmissionAndSweepFactsTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

    private static SnapshotFacts facts() {
        PoolSnapshot s = PoolSnapshot.builder().version(1).takenAt(NOW)
                .pool(new Pool("train", "train", PoolTier.TRAINING, "default", false, null))
                .pool(new Pool("infer", "infer", PoolTier.DEV_SHARED, "default", true, null))
                .tenant(new Tenant("acme", "acme", null, null))
                .tenant(new Tenant("vision", "vision", "acme", null))
                .tenant(new Tenant("vision-3d", "vision-3d", "vision", null))
                .tenant(new Tenant("globex", "globex", null, null))
                .quota(new Quota("acme", "train", Quota.ANY_MODEL, 2, 0, 2))
                .quota(new Quota("vision", "train", "H100", 1, 0, 1))
                .node(new Node("t1", "cluster", "site", null, 64_000, 512 * 1024, null, null))
                .device(card("t1-0")).device(card("t1-1"))
                .lease(new Lease("l", "req-l", "vision-3d", "train", WorkloadKind.TRAINING, 100, true, false, null,
                        LeaseState.ACTIVE, List.of(new DeviceShare("t1-0", 1000, null)), NOW.minus(Duration.ofHours(1)),
                        null, NOW, null))
                .build();
        return SnapshotFacts.of(s, NOW, List.of(), UsageWindow.DEFAULT);
    }

    private static Device card(String id) {
        return new Device(id, null, "t1", "cluster", "site", 0, "H100", 80 * 1024, null, 0, false,
                ShareMode.EXCLUSIVE, List.of(), DeviceHealth.HEALTHY, null, "train", NOW);
    }

    private static <T> List<T> of(List<Object> facts, Class<T> type) {
        return facts.stream().filter(type::isInstance).map(type::cast).toList();
    }

    @Test
    void anAdmissionSeesTheRequestEveryPoolAndTheTenantsLineageWithTheirUsageAndWhatEachAncestorLends() {
        RequestFact request = RequestFact.whole("r", "vision-3d", "TRAINING", 1);

        List<Object> facts = facts().forAdmission(request);

        assertThat(facts.get(0)).isSameAs(request);
        assertThat(of(facts, PoolFact.class)).extracting(PoolFact::poolId).containsExactlyInAnyOrder("train", "infer");
        assertThat(of(facts, TenantFact.class)).extracting(TenantFact::tenantId)
                .containsExactly("vision-3d", "vision", "acme");
        assertThat(of(facts, TenantUsageFact.class)).extracting(u -> u.tenantId() + "/" + u.poolId() + "/" + u.model())
                .containsExactlyInAnyOrder("vision-3d/train/*", "vision-3d/infer/*", "vision/train/*", "vision/infer/*",
                        "vision/train/H100", "acme/train/*", "acme/infer/*");
        assertThat(of(facts, AncestorGuaranteeFact.class)).extracting(g -> g.ancestorId() + "/" + g.poolId() + "/" + g.distance())
                .containsExactlyInAnyOrder("vision/train/1", "acme/train/2", "vision/infer/1", "acme/infer/2");
        assertThat(of(facts, LeaseFact.class)).isEmpty();
    }

    @Test
    void anOrganisationsAdmissionSeesOnlyItselfAndNoAncestor() {
        List<Object> facts = facts().forAdmission(RequestFact.whole("r", "globex", "TRAINING", 1));

        assertThat(of(facts, TenantFact.class)).extracting(TenantFact::tenantId).containsExactly("globex");
        assertThat(of(facts, TenantUsageFact.class)).extracting(TenantUsageFact::tenantId).containsOnly("globex").hasSize(2);
        assertThat(of(facts, AncestorGuaranteeFact.class)).isEmpty();
    }

    @Test
    void aRequestOfATenantTheSnapshotDoesNotKnowSeesOnlyItselfAndThePools() {
        RequestFact stranger = RequestFact.whole("r", "stranger", "TRAINING", 1);

        assertThat(facts().forAdmission(stranger)).hasSize(3).contains(stranger);
    }

    @Test
    void aSweepSeesEveryFactOnceAndTheAncestorGuaranteesOfEachRequestingTenantOnce() {
        RequestFact first = RequestFact.whole("r1", "vision-3d", "TRAINING", 1);
        RequestFact second = RequestFact.whole("r2", "vision-3d", "TRAINING", 1);
        RequestFact third = RequestFact.whole("r3", "vision-3d", "TRAINING", 1);
        RequestFact stranger = RequestFact.whole("r4", "stranger", "TRAINING", 1);
        SnapshotFacts snapshotFacts = facts();

        List<Object> facts = snapshotFacts.forSweep(List.of(first, second, third, stranger));

        assertThat(of(facts, DeviceFact.class)).hasSize(2);
        assertThat(of(facts, LeaseFact.class)).extracting(LeaseFact::leaseId).containsExactly("l");
        assertThat(of(facts, PoolFact.class)).hasSize(2);
        assertThat(of(facts, TenantFact.class)).hasSize(4);
        assertThat(of(facts, TenantUsageFact.class)).containsExactlyInAnyOrderElementsOf(snapshotFacts.usage());
        assertThat(of(facts, AncestorGuaranteeFact.class)).hasSize(4).allMatch(g -> g.tenantId().equals("vision-3d"));
        assertThat(of(facts, RequestFact.class)).containsExactly(first, second, third, stranger);
    }

    @Test
    void theTeamsUsageCountsTowardsEveryAncestorsSubtreeButOnlyItsOwnUse() {
        SnapshotFacts facts = facts();
        TenantUsageFact acme = facts.usage().stream()
                .filter(u -> u.tenantId().equals("acme") && u.poolId().equals("train")).findFirst().orElseThrow();
        TenantUsageFact visionH100 = facts.usage().stream()
                .filter(u -> u.tenantId().equals("vision") && u.model().equals("H100")).findFirst().orElseThrow();

        assertThat(acme.usedMilli()).isZero();
        assertThat(acme.subtreeUsedMilli()).isEqualTo(1000);
        assertThat(acme.headroomMilli()).isEqualTo(1000);
        assertThat(visionH100.guaranteedMilli()).isEqualTo(1000);
        assertThat(visionH100.subtreeUsedMilli()).isEqualTo(1000);
        assertThat(visionH100.withheldBelowMilli()).isZero();
    }
}
