package io.gpupool.policy.decision;

import io.gpupool.domain.request.Approvers;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.policy.fact.DeviceFact;
import io.gpupool.policy.fact.LeaseFact;
import io.gpupool.policy.fact.PoolFact;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.UsageHistory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The collector rule files call: each decision is stamped with the firing rule and the policy
 * version (an author cannot mislabel one), admissions order their pools by the rule's tier order,
 * free capacity and id, and only decision types some rule matches go back into the session.
 */
class DecisionsTest {
    private static final String VERSION = "v12";
    private final List<Object> inserted = new ArrayList<>();

    private Decisions collector(Class<?>... matched) {
        return new Decisions(VERSION, inserted::add, Set.of(matched));
    }

    private static PoolFact pool(String id, String tier, long freeMilli) {
        return new PoolFact(id, id + "-name", tier, false, 8, 8000, freeMilli, Map.of("H100-SXM-80G", 8000L),
                Map.of("H100-SXM-80G", freeMilli), 81_920, 0);
    }

    private static final RequestFact TRAINING_JOB = RequestFact.whole("req-7", "nlp", "training", 4);

    private static DeviceFact h100(String id) {
        return new DeviceFact(id, "dgx-a-01", "train-east", "H100-SXM-80G", 81_920, "train-pool", "TRAINING", Map.of(),
                Map.of(), false, true, 8, 8, true, false, "EXCLUSIVE", "HEALTHY", 5, 0, "H100", "SXM", true, 12);
    }

    private static LeaseFact lease(String id, boolean sampled, long idleSeconds) {
        return new LeaseFact(id, "req-1", "nlp", "ai-org", "train-pool", "TRAINING", 50, true, false, null, "ACTIVE",
                2000, List.of("gpu-1", "gpu-2"), List.of("H100-SXM-80G"), 7200, sampled, sampled ? 0.01 : -1,
                idleSeconds, 20, false, 0, "HEALTHY", UsageHistory.NONE, sampled ? "DEVICE" : "NONE", 30, -1, 12);
    }

    @Test
    void aDecisionRecordedOutsideAnyRuleSaysSoAndCarriesThePolicyVersion() {
        Decisions decisions = collector();

        decisions.tier(h100("gpu-1"), "TRAINING", "H100_NVLINK", "NVLink H100 serves training");

        TierAssignment tier = (TierAssignment) decisions.recorded().get(0);
        assertThat(tier.ruleName()).isEqualTo("(outside a rule)");
        assertThat(tier.policyVersion()).isEqualTo(VERSION);
        assertThat(tier).isEqualTo(new TierAssignment("gpu-1", PoolTier.TRAINING, "(outside a rule)", VERSION,
                "H100_NVLINK", "NVLink H100 serves training"));
    }

    @Test
    void eachDecisionCarriesTheNameOfTheRuleFiringWhenItWasRecorded() {
        Decisions decisions = collector();

        decisions.onRuleFiring("NVLink H100 is training");
        decisions.tier(h100("gpu-1"), "TRAINING", "H100_NVLINK", "training");
        decisions.onRuleFiring("NVLink card is labelled nvlink");
        decisions.label(h100("gpu-1"), "nvlink", "NVLINK", "8-way NVLink domain");

        assertThat(decisions.recorded()).extracting(Decision::ruleName)
                .containsExactly("NVLink H100 is training", "NVLink card is labelled nvlink");
        assertThat(decisions.recorded().get(1)).isEqualTo(new ProfileLabel("gpu-1", "nvlink",
                "NVLink card is labelled nvlink", VERSION, "NVLINK", "8-way NVLink domain"));
    }

    @Test
    void admissionListsPoolsByTheRulesTierOrderBeforeFreeCapacity() {
        Decisions decisions = collector();
        List<PoolFact> pools = List.of(pool("elastic-a", "ELASTIC", 8000), pool("train-a", "TRAINING", 1000));

        decisions.admit(TRAINING_JOB, pools, List.of("TRAINING", "ELASTIC"), "KIND_TRAINING", "training pools first");

        AdmissionDecision admission = (AdmissionDecision) decisions.recorded().get(0);
        assertThat(admission.admitted()).isTrue();
        assertThat(admission.pools()).containsExactly("train-a", "elastic-a");
        assertThat(admission.reasonCode()).isEqualTo("KIND_TRAINING");
        assertThat(admission.message()).isEqualTo("training pools first");
        assertThat(admission.requestId()).isEqualTo("req-7");
    }

    @Test
    void withinOneTierThePoolWithMoreFreeCapacityComesFirst() {
        Decisions decisions = collector();
        List<PoolFact> pools = List.of(pool("train-a", "TRAINING", 1000), pool("train-b", "TRAINING", 6000),
                pool("train-c", "TRAINING", 3000));

        decisions.admit(TRAINING_JOB, pools, List.of("TRAINING"), "KIND_TRAINING", "m");

        assertThat(((AdmissionDecision) decisions.recorded().get(0)).pools())
                .containsExactly("train-b", "train-c", "train-a");
    }

    @Test
    void poolsOfOneTierWithEqualFreeCapacityAreOrderedById() {
        Decisions decisions = collector();
        List<PoolFact> pools = List.of(pool("train-c", "TRAINING", 2000), pool("train-a", "TRAINING", 2000),
                pool("train-b", "TRAINING", 2000));

        decisions.admit(TRAINING_JOB, pools, List.of("TRAINING"), "KIND_TRAINING", "m");

        assertThat(((AdmissionDecision) decisions.recorded().get(0)).pools())
                .containsExactly("train-a", "train-b", "train-c");
    }

    @Test
    void poolsOfATierTheRuleDoesNotNameAreLeftOut() {
        Decisions decisions = collector();
        List<PoolFact> pools = List.of(pool("reserved", "CRITICAL_RESERVED", 8000), pool("dev", "DEV_SHARED", 8000),
                pool("train-a", "TRAINING", 500));

        decisions.admit(TRAINING_JOB, pools, List.of("TRAINING"), "KIND_TRAINING", "m");

        assertThat(((AdmissionDecision) decisions.recorded().get(0)).pools()).containsExactly("train-a");
    }

    @Test
    void anAdmissionLeftWithoutAnyPoolIsARejectionSayingWhichTiersWereAsked() {
        Decisions decisions = collector();
        decisions.onRuleFiring("Training goes to training pools");

        decisions.admit(TRAINING_JOB, List.of(pool("dev", "DEV_SHARED", 8000)), List.of("TRAINING", "ELASTIC"),
                "KIND_TRAINING", "training needs a training pool");

        assertThat(decisions.recorded()).containsExactly(new AdmissionDecision("req-7", false, List.of(),
                "Training goes to training pools", VERSION, "NO_ELIGIBLE_POOL",
                "training needs a training pool (no pool of tier [TRAINING, ELASTIC] can host it)"));
    }

    @Test
    void admitToKeepsThePoolsExactlyInTheOrderTheRuleGave() {
        Decisions decisions = collector();

        decisions.admitTo(TRAINING_JOB, List.of("train-b", "reserved", "train-a"), "APPROVED_POOL", "approved");

        assertThat(decisions.recorded()).containsExactly(new AdmissionDecision("req-7", true,
                List.of("train-b", "reserved", "train-a"), "(outside a rule)", VERSION, "APPROVED_POOL", "approved"));
    }

    @Test
    void aRejectionHasNoPools() {
        Decisions decisions = collector();

        decisions.reject(TRAINING_JOB, "TOO_MANY_GPUS", "at most 64 GPUs");

        AdmissionDecision rejection = (AdmissionDecision) decisions.recorded().get(0);
        assertThat(rejection.admitted()).isFalse();
        assertThat(rejection.pools()).isEmpty();
        assertThat(rejection.reasonCode()).isEqualTo("TOO_MANY_GPUS");
    }

    @Test
    void priorityAndPreemptibilityAreRecordedForTheRequest() {
        Decisions decisions = collector();

        decisions.priority(TRAINING_JOB, 80, true, "CLASS_HIGH", "high class");

        assertThat(decisions.recorded()).containsExactly(
                new PriorityAssignment("req-7", 80, true, "(outside a rule)", VERSION, "CLASS_HIGH", "high class"));
    }

    @Test
    void aQuotaVerdictIsForAllModelsAndNamesTheRequestsTenant() {
        Decisions decisions = collector();

        decisions.quota(TRAINING_JOB, "train-a", "MAY_BORROW", "ai-org", "BORROW", "borrows from ai-org");

        QuotaVerdict verdict = (QuotaVerdict) decisions.recorded().get(0);
        assertThat(verdict).isEqualTo(new QuotaVerdict("req-7", "nlp", "train-a", QuotaVerdict.ANY_MODEL,
                QuotaStatus.MAY_BORROW, "ai-org", "(outside a rule)", VERSION, "BORROW", "borrows from ai-org"));
        assertThat(verdict.isModelSpecific()).isFalse();
    }

    @Test
    void aModelQuotaVerdictNamesTheCardModelItGoverns() {
        Decisions decisions = collector();

        decisions.modelQuota(TRAINING_JOB, "train-a", "H100-SXM-80G", "OVER_LIMIT", null, "MODEL_OVER", "over");

        QuotaVerdict verdict = (QuotaVerdict) decisions.recorded().get(0);
        assertThat(verdict.model()).isEqualTo("H100-SXM-80G");
        assertThat(verdict.status()).isEqualTo(QuotaStatus.OVER_LIMIT);
        assertThat(verdict.tenantId()).isEqualTo("nlp");
        assertThat(verdict.isModelSpecific()).isTrue();
        assertThat(verdict.key()).isEqualTo("req-7/train-a/H100-SXM-80G");
    }

    @Test
    void aPreemptionCandidateCopiesWhatPreemptingTheLeaseWouldFree() {
        Decisions decisions = collector();
        LeaseFact victim = new LeaseFact("lease-9", "req-1", "ads", "biz-org", "train-a", "TRAINING", 10, true, true,
                "gang-3", "ACTIVE", 4000, List.of(), List.of(), 60, false, -1, 0, 5, false, 0, "HEALTHY", null, null,
                -1, -1, -1);

        decisions.preempt(TRAINING_JOB, victim, 1_010, "LOWER_PRIORITY", "priority 10 < 80");

        assertThat(decisions.recorded()).containsExactly(new PreemptionCandidate("req-7", "lease-9", "train-a", "ads",
                "gang-3", 4000, 1_010, "(outside a rule)", VERSION, "LOWER_PRIORITY", "priority 10 < 80"));
    }

    @Test
    void anIdleReclaimOfASampledLeaseSaysHowLongItWasIdle() {
        Decisions decisions = collector();

        decisions.reclaim(lease("lease-1", true, 5400), "IDLE", 3, "IDLE_1H", "idle for 90 minutes");

        assertThat(decisions.recorded()).containsExactly(new ReclaimOrder("lease-1", ReclaimCause.IDLE, 3,
                "(outside a rule)", VERSION, "IDLE_1H", "idle for 90 minutes", 5400));
    }

    @Test
    void anIdleReclaimOfALeaseWithoutSamplesHasNoIdleTime() {
        Decisions decisions = collector();

        decisions.reclaim(lease("lease-1", false, 5400), "IDLE", 3, "IDLE_1H", "idle");

        assertThat(((ReclaimOrder) decisions.recorded().get(0)).idleSeconds()).isEqualTo(-1);
    }

    @Test
    void aReclaimForAnotherCauseHasNoIdleTimeEvenWhenTheLeaseIsSampled() {
        Decisions decisions = collector();

        decisions.reclaim(lease("lease-1", true, 5400), "TTL_EXPIRED", 1, "TTL", "ttl ran out");

        ReclaimOrder order = (ReclaimOrder) decisions.recorded().get(0);
        assertThat(order.cause()).isEqualTo(ReclaimCause.TTL_EXPIRED);
        assertThat(order.idleSeconds()).isEqualTo(-1);
        assertThat(order.key()).isEqualTo("lease-1/TTL_EXPIRED");
    }

    @Test
    void anApprovalRequirementNamesWhoMayApprove() {
        Decisions decisions = collector();
        decisions.onRuleFiring("Large requests wait for the organisation");

        decisions.requireApproval(TRAINING_JOB, "ORG_ADMIN", "LARGE", "more than 32 GPUs");

        ApprovalRequirement approval = (ApprovalRequirement) decisions.recorded().get(0);
        assertThat(approval).isEqualTo(new ApprovalRequirement("req-7", Approvers.ORG_ADMIN,
                "Large requests wait for the organisation", VERSION, "LARGE", "more than 32 GPUs"));
        assertThat(approval.key()).isEqualTo("req-7/Large requests wait for the organisation");
    }

    @Test
    void aMisspeltTierStatusCauseOrApproverFailsInsteadOfRecordingNonsense() {
        Decisions decisions = collector();

        assertThatThrownBy(() -> decisions.tier(h100("gpu-1"), "TRAINNG", "X", "m"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> decisions.quota(TRAINING_JOB, "train-a", "BORROW", null, "X", "m"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> decisions.reclaim(lease("lease-1", true, 1), "IDLE_TOO_LONG", 1, "X", "m"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> decisions.requireApproval(TRAINING_JOB, "TEAM_LEAD", "X", "m"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(decisions.recorded()).isEmpty();
    }

    @Test
    void onlyDecisionTypesThatSomeRuleMatchesAreInsertedIntoTheSession() {
        Decisions decisions = collector(AdmissionDecision.class);

        decisions.priority(TRAINING_JOB, 50, false, "DEFAULT", "m");
        decisions.admitTo(TRAINING_JOB, List.of("train-a"), "KIND", "m");
        decisions.tier(h100("gpu-1"), "TRAINING", "X", "m");

        assertThat(inserted).hasSize(1).first().isInstanceOf(AdmissionDecision.class);
        assertThat(decisions.recorded()).hasSize(3);
    }

    @Test
    void theRecordedListIsASnapshotThatLaterDecisionsDoNotChange() {
        Decisions decisions = collector();
        decisions.reject(TRAINING_JOB, "A", "m");
        List<Decision> first = decisions.recorded();

        decisions.reject(TRAINING_JOB, "B", "m");

        assertThat(first).hasSize(1);
        assertThat(decisions.recorded()).hasSize(2);
        assertThatThrownBy(() -> first.add(first.get(0))).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void everyDecisionNamesItsTypeAndSubjectForDiffsAndJson() {
        Decisions decisions = collector();
        decisions.tier(h100("gpu-1"), "TRAINING", "X", "m");
        decisions.label(h100("gpu-1"), "nvlink", "X", "m");
        decisions.reject(TRAINING_JOB, "X", "m");
        decisions.priority(TRAINING_JOB, 1, false, "X", "m");
        decisions.quota(TRAINING_JOB, "train-a", "WITHIN_GUARANTEE", null, "X", "m");
        decisions.preempt(TRAINING_JOB, lease("lease-4", false, 0), 1, "X", "m");
        decisions.reclaim(lease("lease-5", false, 0), "STALE_HEARTBEAT", 1, "X", "m");
        decisions.onRuleFiring("Large requests wait");
        decisions.requireApproval(TRAINING_JOB, "PLATFORM_ADMIN", "X", "m");

        assertThat(decisions.recorded()).extracting(Decision::type)
                .containsExactly("TierAssignment", "ProfileLabel", "AdmissionDecision", "PriorityAssignment",
                        "QuotaVerdict", "PreemptionCandidate", "ReclaimOrder", "ApprovalRequirement");
        assertThat(decisions.recorded()).extracting(Decision::key)
                .containsExactly("gpu-1", "gpu-1/nvlink", "req-7", "req-7", "req-7/train-a/*", "req-7/lease-4",
                        "lease-5/STALE_HEARTBEAT", "req-7/Large requests wait");
        assertThat(decisions.recorded()).extracting(Decision::subject)
                .containsExactly("gpu-1", "gpu-1", "req-7", "req-7", "req-7", "lease-4", "lease-5", "req-7");
    }
}
