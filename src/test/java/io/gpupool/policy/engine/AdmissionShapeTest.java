package io.gpupool.policy.engine;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.fact.FactsTracker;
import io.gpupool.policy.fact.PoolFact;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.testing.LeaseChurn;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests alike but for their ids share one evaluation: their admission facts, and the facts of a
 * victim search without its leases, where each pool names the searching request itself as the one
 * placement failed for (renaming one request's id to the other's turns one set of facts into the other).
 */
class AdmissionShapeTest {
    private static final SnapshotFacts FACTS = new FactsTracker().of(new LeaseChurn(7).fleet());

    @Test
    void twoRequestsAlikeButForTheirIdsHaveOneShapeInAVictimSearchWithoutItsLeases() {
        AdmissionShape first = AdmissionShape.of(DefaultPolicy.POLICY, withoutLeases(request("q1", "a")));
        AdmissionShape second = AdmissionShape.of(DefaultPolicy.POLICY, withoutLeases(request("q2", "a")));

        assertThat(first).isNotNull().isEqualTo(second);
        assertThat(first.requestId()).isEqualTo("q1");
    }

    @Test
    void requestsOfDifferentTenantsHaveDifferentShapes() {
        assertThat(AdmissionShape.of(DefaultPolicy.POLICY, withoutLeases(request("q1", "a"))))
                .isNotEqualTo(AdmissionShape.of(DefaultPolicy.POLICY, withoutLeases(request("q2", "c"))));
    }

    @Test
    void aPoolNamingAnotherRequestHasNoShape() {
        List<Object> facts = new ArrayList<>(withoutLeases(request("q1", "a")));
        facts.replaceAll(f -> f instanceof PoolFact p ? p.withoutPlacementFor("someone-else") : f);

        assertThat(AdmissionShape.of(DefaultPolicy.POLICY, facts)).isNull();
    }

    @Test
    void anAdmissionAndTheSameRequestsSearchWithoutLeasesDoNotShareAShape() {
        RequestFact request = request("q1", "a");

        assertThat(AdmissionShape.of(DefaultPolicy.POLICY, FACTS.forAdmission(request)))
                .isNotEqualTo(AdmissionShape.of(DefaultPolicy.POLICY, withoutLeases(request)));
    }

    private static List<Object> withoutLeases(RequestFact request) {
        return FACTS.forPreemptionWithoutLeases(request, List.of("train", "shared"));
    }

    private static RequestFact request(String id, String tenant) {
        return new RequestFact(id, tenant, "TRAINING", 1, 1000, null, List.of(), 0, 1, null, true, 0, null, false);
    }
}
