package io.gpupool.policy.engine;

import io.gpupool.domain.request.Approvers;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.policy.decision.AdmissionDecision;
import io.gpupool.policy.decision.ApprovalRequirement;
import io.gpupool.policy.decision.Decision;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.policy.decision.PriorityAssignment;
import io.gpupool.policy.decision.ProfileLabel;
import io.gpupool.policy.decision.QuotaStatus;
import io.gpupool.policy.decision.QuotaVerdict;
import io.gpupool.policy.decision.ReclaimCause;
import io.gpupool.policy.decision.ReclaimOrder;
import io.gpupool.policy.decision.TierAssignment;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The queries enforcement, dry-run and tests all resolve an evaluation through: they settle
 * overlapping decisions the one way (a rejection beats admissions, the first priority wins, a
 * lease's lowest order counts), so these tests build evaluations by hand, without an engine.
 */
class EvaluationTest {
    private static final String RULE = "Some rule";

    private static Evaluation of(Decision... decisions) {
        return new Evaluation("v3", Scope.SWEEP, List.of(decisions), Map.of(RULE, decisions.length),
                decisions.length, true, List.of(), 1_000);
    }

    private static AdmissionDecision admit(String request, String rule, String... pools) {
        return new AdmissionDecision(request, true, List.of(pools), rule, "v3", "KIND", "m");
    }

    private static AdmissionDecision reject(String request, String rule, String reason) {
        return new AdmissionDecision(request, false, List.of(), rule, "v3", reason, "m");
    }

    private static QuotaVerdict quota(String request, String pool, QuotaStatus status) {
        return new QuotaVerdict(request, "nlp", pool, QuotaVerdict.ANY_MODEL, status, null, RULE, "v3", "Q", "m");
    }

    private static PreemptionCandidate candidate(String request, String lease, String pool, String gang, long milli,
                                                 long orderKey) {
        return new PreemptionCandidate(request, lease, pool, "ads", gang, milli, orderKey, RULE, "v3", "LOWER", "m");
    }

    private static ReclaimOrder reclaim(String lease, ReclaimCause cause, long order) {
        return new ReclaimOrder(lease, cause, order, RULE, "v3", cause.name(), "m");
    }

    @Test
    void anEvaluationWithoutErrorsThatReachedQuiescenceMayBeEnforced() {
        assertThat(of().ok()).isTrue();
    }

    @Test
    void anEvaluationWithAnErrorMustNotBeEnforced() {
        Evaluation failed = new Evaluation("v3", Scope.ADMISSION, List.of(), Map.of(), 0, true,
                List.of(PolicyMessage.error(Stage.EVALUATION, null, 0, 0, "Rule 'x' failed")), 10);

        assertThat(failed.ok()).isFalse();
    }

    @Test
    void anEvaluationStoppedBeforeQuiescenceMustNotBeEnforced() {
        Evaluation halted = new Evaluation("v3", Scope.SWEEP, List.of(), Map.of(), 10_020, false, List.of(), 10);

        assertThat(halted.ok()).isFalse();
    }

    @Test
    void itsListsAndCountsCannotBeChangedAfterwards() {
        Map<String, Integer> fired = new HashMap<>(Map.of(RULE, 1));
        Evaluation e = new Evaluation("v3", Scope.SWEEP, List.of(reject("r1", RULE, "X")), fired, 1, true, List.of(), 1);
        fired.put("Another rule", 4);

        assertThat(e.firedRules()).containsOnlyKeys(RULE);
        assertThatThrownBy(() -> e.firedRules().put("x", 1)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> e.decisions().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aRejectionOverridesEveryAdmissionOfTheSameRequestWhateverTheOrder() {
        Evaluation e = of(admit("r1", "Training goes to training pools", "train-a"),
                reject("r1", "More than 64 GPUs is refused", "TOO_LARGE"),
                reject("r1", "Unknown kind is refused", "UNKNOWN_KIND"),
                admit("r2", "Dev goes to dev pools", "dev-a"));

        assertThat(e.admissionOf("r1")).get().satisfies(a -> {
            assertThat(a.admitted()).isFalse();
            assertThat(a.ruleName()).isEqualTo("More than 64 GPUs is refused");
        });
        assertThat(e.admissionOf("r2")).get().extracting(AdmissionDecision::pools).isEqualTo(List.of("dev-a"));
    }

    @Test
    void withoutARejectionTheFirstAdmissionCounts() {
        Evaluation e = of(admit("r1", "First", "train-a"), admit("r1", "Second", "elastic-a"));

        assertThat(e.admissionOf("r1")).get().extracting(AdmissionDecision::ruleName).isEqualTo("First");
    }

    @Test
    void aRequestNoRuleAdmittedOrRejectedHasNoAdmission() {
        Evaluation e = of(admit("r1", "First", "train-a"));

        assertThat(e.admissionOf("r9")).isEmpty();
        assertThat(e.priorityOf("r9")).isEmpty();
        assertThat(e.quotaOf("r9")).isEmpty();
        assertThat(e.approvalsOf("r9")).isEmpty();
    }

    @Test
    void theFirstPriorityRecordedForARequestWins() {
        Evaluation e = of(new PriorityAssignment("r2", 90, false, "Other request", "v3", "P", "m"),
                new PriorityAssignment("r1", 80, false, "Class high", "v3", "P", "m"),
                new PriorityAssignment("r1", 20, true, "Default priority", "v3", "P", "m"));

        assertThat(e.priorityOf("r1")).get().extracting(PriorityAssignment::priority).isEqualTo(80);
    }

    @Test
    void quotaVerdictsFollowTheOrderOfTheAdmittedPools() {
        Evaluation e = of(quota("r1", "elastic-a", QuotaStatus.MAY_BORROW),
                quota("r1", "train-b", QuotaStatus.OVER_LIMIT),
                quota("r2", "train-a", QuotaStatus.WITHIN_GUARANTEE),
                quota("r1", "train-a", QuotaStatus.WITHIN_GUARANTEE),
                admit("r1", "Training", "train-a", "train-b", "elastic-a"));

        assertThat(e.quotaOf("r1")).extracting(QuotaVerdict::poolId).containsExactly("train-a", "train-b", "elastic-a");
    }

    @Test
    void quotaVerdictsForPoolsTheAdmissionDoesNotListComeLastInFiringOrder() {
        Evaluation e = of(quota("r1", "dev-b", QuotaStatus.OVER_LIMIT), quota("r1", "dev-a", QuotaStatus.OVER_LIMIT),
                quota("r1", "train-a", QuotaStatus.WITHIN_GUARANTEE), admit("r1", "Training", "train-a"));

        assertThat(e.quotaOf("r1")).extracting(QuotaVerdict::poolId).containsExactly("train-a", "dev-b", "dev-a");
    }

    @Test
    void approvalsOfARequestAreAllItsRequirementsInFiringOrder() {
        ApprovalRequirement large = new ApprovalRequirement("r1", Approvers.ORG_ADMIN, "Large", "v3", "LARGE", "m");
        ApprovalRequirement reserved = new ApprovalRequirement("r1", Approvers.PLATFORM_ADMIN, "Reserved", "v3", "R", "m");
        Evaluation e = of(large, new ApprovalRequirement("r2", Approvers.ORG_ADMIN, "Large", "v3", "LARGE", "m"), reserved);

        assertThat(e.approvalsOf("r1")).containsExactly(large, reserved);
    }

    @Test
    void decisionsOfATypeAreReturnedInFiringOrder() {
        TierAssignment t1 = new TierAssignment("gpu-2", PoolTier.TRAINING, RULE, "v3", "T", "m");
        TierAssignment t2 = new TierAssignment("gpu-1", PoolTier.ELASTIC, RULE, "v3", "T", "m");
        Evaluation e = of(t1, reject("r1", RULE, "X"), t2);

        assertThat(e.decisionsOf(TierAssignment.class)).containsExactly(t1, t2);
        assertThat(e.decisionsOf(ReclaimOrder.class)).isEmpty();
    }

    @Test
    void aDevicesTierIsTheFirstAssignedAndItsLabelsAreDistinctAndSorted() {
        Evaluation e = of(new TierAssignment("gpu-1", PoolTier.TRAINING, "NVLink H100", "v3", "T", "m"),
                new TierAssignment("gpu-1", PoolTier.ELASTIC, "Any other GPU is elastic", "v3", "T", "m"),
                new ProfileLabel("gpu-1", "training-fit", RULE, "v3", "L", "m"),
                new ProfileLabel("gpu-1", "nvlink", RULE, "v3", "L", "m"),
                new ProfileLabel("gpu-2", "shareable", RULE, "v3", "L", "m"),
                new ProfileLabel("gpu-1", "nvlink", "Another rule", "v3", "L", "m"));

        assertThat(e.tierOf("gpu-1")).get().extracting(TierAssignment::tier).isEqualTo(PoolTier.TRAINING);
        assertThat(e.tierOf("gpu-3")).isEmpty();
        assertThat(e.labelsOf("gpu-1")).containsExactly("nvlink", "training-fit");
        assertThat(e.labelsOf("gpu-3")).isEmpty();
    }

    @Test
    void aPreemptionPlanHasOneEntryPerLeaseKeepingItsLowestKeyInKeyOrder() {
        Evaluation e = of(candidate("r1", "lease-a", "train-a", null, 1000, 30),
                candidate("r1", "lease-b", "train-a", null, 1000, 20),
                candidate("r1", "lease-a", "train-a", null, 1000, 10),
                candidate("r1", "lease-a", "train-a", null, 1000, 40),
                candidate("r2", "lease-c", "train-a", null, 1000, 1));

        assertThat(e.preemptionPlan("r1")).extracting(PreemptionCandidate::leaseId, PreemptionCandidate::orderKey)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("lease-a", 10L),
                        org.assertj.core.groups.Tuple.tuple("lease-b", 20L));
    }

    @Test
    void aLeaseProposedTwiceWithTheSameKeyKeepsTheFirstRulesCandidate() {
        PreemptionCandidate first = new PreemptionCandidate("r1", "lease-a", "train-a", "ads", null, 1000, 5,
                "Lower priority is preempted", "v3", "LOWER", "m");
        PreemptionCandidate second = new PreemptionCandidate("r1", "lease-a", "train-a", "ads", null, 1000, 5,
                "Borrowed leases go first", "v3", "BORROWED", "m");

        assertThat(of(first, second).preemptionPlan("r1")).containsExactly(first);
    }

    @Test
    void aLeaseOrderedBackTwiceAtTheSameOrderKeepsTheFirstCause() {
        ReclaimOrder idle = reclaim("lease-a", ReclaimCause.IDLE, 10);
        ReclaimOrder stale = reclaim("lease-a", ReclaimCause.STALE_HEARTBEAT, 10);

        assertThat(of(idle, stale).reclaimPlan()).containsExactly(idle);
    }

    @Test
    void leasesWithTheSameOrderKeyArePlannedByLeaseId() {
        Evaluation e = of(candidate("r1", "lease-z", "train-a", null, 1000, 5),
                candidate("r1", "lease-m", "train-a", null, 1000, 5),
                candidate("r1", "lease-a", "train-a", null, 1000, 5));

        assertThat(e.preemptionPlan("r1")).extracting(PreemptionCandidate::leaseId)
                .containsExactly("lease-a", "lease-m", "lease-z");
    }

    @Test
    void thePlanForOnePoolTakesTheCheapestVictimsUntilEnoughIsFree() {
        Evaluation e = of(candidate("r1", "lease-a", "train-a", null, 2000, 1),
                candidate("r1", "lease-b", "train-a", null, 2000, 2),
                candidate("r1", "lease-c", "train-a", null, 2000, 3),
                candidate("r1", "lease-x", "train-b", null, 8000, 0));

        assertThat(e.preemptionPlan("r1", "train-a", 3000)).extracting(PreemptionCandidate::leaseId)
                .containsExactly("lease-a", "lease-b");
        assertThat(e.preemptionPlan("r1", "train-a", 4000)).extracting(PreemptionCandidate::leaseId)
                .containsExactly("lease-a", "lease-b");
        assertThat(e.preemptionPlan("r1", "train-a", 4001)).extracting(PreemptionCandidate::leaseId)
                .containsExactly("lease-a", "lease-b", "lease-c");
    }

    @Test
    void aPlanThatCannotFreeEnoughPreemptsNobody() {
        Evaluation e = of(candidate("r1", "lease-a", "train-a", null, 2000, 1),
                candidate("r1", "lease-b", "train-a", null, 2000, 2));

        assertThat(e.preemptionPlan("r1", "train-a", 4001)).isEmpty();
        assertThat(e.preemptionPlan("r1", "train-a", 4000)).hasSize(2);
    }

    @Test
    void nothingNeededPreemptsNobody() {
        Evaluation e = of(candidate("r1", "lease-a", "train-a", null, 2000, 1));

        assertThat(e.preemptionPlan("r1", "train-a", 0)).isEmpty();
    }

    @Test
    void aGangIsPreemptedWholeEvenWhenPartOfItWouldFreeEnough() {
        Evaluation e = of(candidate("r1", "gang-lease-1", "train-a", "gang-7", 1000, 1),
                candidate("r1", "solo", "train-a", null, 1000, 2),
                candidate("r1", "gang-lease-2", "train-a", "gang-7", 1000, 3),
                candidate("r1", "gang-lease-3", "train-a", "gang-7", 1000, 4));

        assertThat(e.preemptionPlan("r1", "train-a", 1000)).extracting(PreemptionCandidate::leaseId)
                .containsExactly("gang-lease-1", "gang-lease-2", "gang-lease-3");
    }

    @Test
    void aGangAlreadyTakenIsNotTakenTwice() {
        Evaluation e = of(candidate("r1", "gang-lease-1", "train-a", "gang-7", 1000, 1),
                candidate("r1", "gang-lease-2", "train-a", "gang-7", 1000, 2),
                candidate("r1", "solo", "train-a", null, 1000, 3));

        assertThat(e.preemptionPlan("r1", "train-a", 3000)).extracting(PreemptionCandidate::leaseId)
                .containsExactly("gang-lease-1", "gang-lease-2", "solo");
    }

    @Test
    void theReclaimPlanHasOneEntryPerLeaseAtItsLowestOrder() {
        Evaluation e = of(reclaim("lease-b", ReclaimCause.IDLE, 20),
                reclaim("lease-a", ReclaimCause.TTL_EXPIRED, 30),
                reclaim("lease-b", ReclaimCause.STALE_HEARTBEAT, 5),
                reclaim("lease-b", ReclaimCause.BORROWED_RECLAIM, 50),
                reclaim("lease-c", ReclaimCause.IDLE, 30));

        assertThat(e.reclaimPlan()).extracting(ReclaimOrder::leaseId, ReclaimOrder::cause)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("lease-b", ReclaimCause.STALE_HEARTBEAT),
                        org.assertj.core.groups.Tuple.tuple("lease-a", ReclaimCause.TTL_EXPIRED),
                        org.assertj.core.groups.Tuple.tuple("lease-c", ReclaimCause.IDLE));
    }
}
