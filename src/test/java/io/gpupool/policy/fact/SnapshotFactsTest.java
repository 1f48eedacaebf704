package io.gpupool.policy.fact;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.scenario.ScenarioFixture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SnapshotFactsTest {
    private static SnapshotFacts facts;

    @BeforeAll
    static void fixture() throws Exception {
        facts = ScenarioFixture.facts(DefaultPolicy.RUNNER.parse("""
                given:
                  pools: [{id: training, tier: TRAINING}]
                  tenants: [{id: acme}, {id: acme-vision, parent: acme}, {id: acme-nlp, parent: acme}]
                  quotas:
                    - {tenant: acme, pool: training, guaranteed: 8, borrowingLimit: 2}
                    - {tenant: acme-vision, pool: training, guaranteed: 4, borrowingLimit: 1}
                  nodes:
                    - {id: dgx-1, gpus: 8, model: H100, nvlink: true, pool: training, unhealthy: [7]}
                    - {id: res-1, gpus: 2, model: L4, labels: {reserved: "true"}}
                  leases:
                    - {id: v1, tenant: acme-vision, pool: training, node: dgx-1, gpus: 3, idle: PT90M}
                    - {id: v2, tenant: acme-vision, pool: training, node: dgx-1, gpus: 1, borrowed: true, utilisation: 0.7}
                    - {id: n1, tenant: acme-nlp, pool: training, node: dgx-1, gpus: 2, milli: 500}
                """));
    }

    private static TenantUsageFact usage(String tenant) {
        return facts.usage().stream().filter(u -> u.tenantId().equals(tenant) && u.isAnyModel()).findFirst().orElseThrow();
    }

    private static LeaseFact lease(String id) {
        return facts.leases().stream().filter(l -> l.leaseId().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void teamUsageCountsItsOwnLeasesAndBorrowing() {
        TenantUsageFact vision = usage("acme-vision");

        assertThat(vision.usedMilli()).isEqualTo(4000);
        assertThat(vision.borrowedMilli()).isEqualTo(1000);
        assertThat(vision.headroomMilli()).isZero();
        assertThat(vision.borrowRoomMilli()).isZero();
    }

    @Test
    void organisationHeadroomCountsEveryTeamsUsage() {
        TenantUsageFact acme = usage("acme");

        assertThat(acme.usedMilli()).isZero();
        assertThat(acme.subtreeUsedMilli()).isEqualTo(5000);
        assertThat(acme.headroomMilli()).isEqualTo(3000);
    }

    @Test
    void tenantWithoutQuotaStillHasAZeroGuaranteeRow() {
        TenantUsageFact nlp = usage("acme-nlp");

        assertThat(nlp.guaranteedMilli()).isZero();
        assertThat(nlp.usedMilli()).isEqualTo(1000);
        assertThat(nlp.orgId()).isEqualTo("acme");
    }

    @Test
    void poolCapacityLeavesOutUnhealthyCards() {
        PoolFact training = facts.pools().get(0);

        assertThat(training.deviceCount()).isEqualTo(7);
        assertThat(training.capacityMilli()).isEqualTo(7000);
        assertThat(training.freeMilli()).isEqualTo(7000 - 5000);
        assertThat(training.freeMilliByModel()).containsEntry("H100", 2000L);
    }

    @Test
    void lendableCapacityIsTheOrgsIdleGuaranteeMinusWhatIsAlreadyBorrowed() {
        PoolFact training = facts.pools().get(0);

        // acme: guarantee 8 GPUs, its teams use 5 → 3 idle (lending limit 8); no unguaranteed
        // capacity (7 healthy cards < 8 guaranteed); 1 GPU already borrowed.
        assertThat(training.lendableMilli()).isEqualTo(2000);
        assertThat(usage("acme").lendableMilli()).isEqualTo(3000);
    }

    @Test
    void idleTimeAndWindowUtilisationComeFromTheSamples() {
        assertThat(lease("v1").idleSeconds()).isEqualTo(90 * 60);
        assertThat(lease("v1").idleSecondsBelow(0.5)).as("a rule's own threshold, same samples").isEqualTo(90 * 60);
        assertThat(lease("v1").idleSecondsBelow(0.95)).as("busy samples at 0.9 count as idle under 0.95")
                .isGreaterThan(90 * 60);
        assertThat(lease("v1").utilisation()).isZero();
        assertThat(lease("v2").idleSeconds()).isZero();
        assertThat(lease("v2").utilisation()).isEqualTo(0.7, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(lease("n1").sampled()).isFalse();
        assertThat(lease("n1").utilisation()).isEqualTo(-1.0);
    }

    @Test
    void deviceFactsResolveNvlinkFabricAndReservedNodeLabel() {
        DeviceFact dgx = facts.devices().stream().filter(d -> d.deviceId().equals("dgx-1-gpu0")).findFirst().orElseThrow();
        DeviceFact reserved = facts.devices().stream().filter(d -> d.deviceId().equals("res-1-gpu1")).findFirst().orElseThrow();

        assertThat(dgx.nvlink()).isTrue();
        assertThat(dgx.nvlinkDomainSize()).isEqualTo(8);
        assertThat(dgx.poolTier()).isEqualTo("TRAINING");
        assertThat(dgx.usedMilli()).isEqualTo(1000);
        assertThat(reserved.reserved()).isTrue();
        assertThat(reserved.nvlink()).isFalse();
        assertThat(reserved.poolId()).isNull();
    }
}
