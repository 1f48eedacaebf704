package io.gpupool.policy.dryrun;

import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.policy.decision.AdmissionDecision;
import io.gpupool.policy.decision.Decision;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.policy.decision.PriorityAssignment;
import io.gpupool.policy.decision.ProfileLabel;
import io.gpupool.policy.decision.QuotaStatus;
import io.gpupool.policy.decision.QuotaVerdict;
import io.gpupool.policy.decision.ReclaimCause;
import io.gpupool.policy.decision.ReclaimOrder;
import io.gpupool.policy.decision.TierAssignment;
import io.gpupool.policy.dryrun.DecisionChange.Aspect;
import io.gpupool.policy.dryrun.DecisionChange.Subject;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.Scope;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dry-run's decision diff, aspect by aspect: it resolves each side through the queries
 * enforcement uses, so it shows what would be enforced differently, with the rule on each side,
 * and nothing where both sides would enforce the same.
 */
class PolicyDifferTest {
    private static final PolicyDiffer DIFFER = new PolicyDiffer();
    private static final Evaluation NO_SWEEP = sweep();

    private static Evaluation sweep(Decision... decisions) {
        return new Evaluation("v", Scope.SWEEP, List.of(decisions), Map.of(), decisions.length, true, List.of(), 1);
    }

    private static Evaluation admission(Decision... decisions) {
        return new Evaluation("v", Scope.ADMISSION, List.of(decisions), Map.of(), decisions.length, true, List.of(), 1);
    }

    private static AdmissionDecision admit(String request, String rule, String... pools) {
        return new AdmissionDecision(request, true, List.of(pools), rule, "v", "KIND", "m");
    }

    private static AdmissionDecision reject(String request, String rule, String reason) {
        return new AdmissionDecision(request, false, List.of(), rule, "v", reason, "m");
    }

    private static PriorityAssignment priority(String request, String rule, int priority, boolean preemptible) {
        return new PriorityAssignment(request, priority, preemptible, rule, "v", "P", "m");
    }

    private static QuotaVerdict quota(String request, String pool, QuotaStatus status, String rule) {
        return new QuotaVerdict(request, "nlp", pool, QuotaVerdict.ANY_MODEL, status, null, rule, "v", "Q", "m");
    }

    private static List<DecisionChange> requests(Map<String, Evaluation> before, Map<String, Evaluation> after) {
        return DIFFER.diff(NO_SWEEP, NO_SWEEP, before, after);
    }

    @Test
    void twoPoliciesThatDecideTheSameShowNoChange() {
        Map<String, Evaluation> same = Map.of("req-1", admission(admit("req-1", "Training", "train-a"),
                priority("req-1", "Default", 50, true), quota("req-1", "train-a", QuotaStatus.WITHIN_GUARANTEE, "Q")));
        Evaluation tiers = sweep(new TierAssignment("gpu-1", PoolTier.TRAINING, "H100", "v", "T", "m"));

        assertThat(DIFFER.diff(tiers, tiers, same, same)).isEmpty();
    }

    @Test
    void aRequestNowRejectedShowsTheRejectionReasonAndBothRules() {
        List<DecisionChange> changes = requests(
                Map.of("req-1", admission(admit("req-1", "Training goes to training pools", "train-a"))),
                Map.of("req-1", admission(reject("req-1", "More than 64 GPUs is refused", "TOO_LARGE"))));

        assertThat(changes).containsExactly(
                new DecisionChange(Subject.REQUEST, "req-1", Aspect.ADMISSION, "admitted", "rejected: TOO_LARGE",
                        "Training goes to training pools", "More than 64 GPUs is refused"),
                new DecisionChange(Subject.REQUEST, "req-1", Aspect.POOLS, "[train-a]", DecisionChange.NOTHING,
                        "Training goes to training pools", null));
    }

    @Test
    void theRejectionThatEnforcementWouldApplyIsTheOneShownEvenAfterAnAdmission() {
        List<DecisionChange> changes = requests(
                Map.of("req-1", admission(admit("req-1", "Training", "train-a"))),
                Map.of("req-1", admission(admit("req-1", "Training", "train-a"), reject("req-1", "Quarantine", "QUARANTINED"))));

        assertThat(changes).extracting(DecisionChange::aspect, DecisionChange::after)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Aspect.ADMISSION, "rejected: QUARANTINED"),
                        org.assertj.core.groups.Tuple.tuple(Aspect.POOLS, DecisionChange.NOTHING));
    }

    @Test
    void anotherPoolOrderIsAPoolsChangeAlone() {
        List<DecisionChange> changes = requests(
                Map.of("req-1", admission(admit("req-1", "Training", "train-a", "elastic-a"))),
                Map.of("req-1", admission(admit("req-1", "Elastic first", "elastic-a", "train-a"))));

        assertThat(changes).containsExactly(new DecisionChange(Subject.REQUEST, "req-1", Aspect.POOLS,
                "[train-a, elastic-a]", "[elastic-a, train-a]", "Training", "Elastic first"));
    }

    @Test
    void aNewPriorityOrPreemptibilityIsShownAsText() {
        List<DecisionChange> changes = requests(
                Map.of("req-1", admission(priority("req-1", "Default", 50, false)),
                        "req-2", admission(priority("req-2", "Default", 50, false))),
                Map.of("req-1", admission(priority("req-1", "Class high", 80, false)),
                        "req-2", admission(priority("req-2", "Dev is preemptible", 50, true))));

        assertThat(changes).containsExactly(
                new DecisionChange(Subject.REQUEST, "req-1", Aspect.PRIORITY, "50 not preemptible", "80 not preemptible",
                        "Default", "Class high"),
                new DecisionChange(Subject.REQUEST, "req-2", Aspect.PRIORITY, "50 not preemptible", "50 preemptible",
                        "Default", "Dev is preemptible"));
    }

    @Test
    void quotaVerdictsAreShownPerPoolInTheAdmittedOrderWithTheFirstVerdictsRule() {
        List<DecisionChange> changes = requests(
                Map.of("req-1", admission(admit("req-1", "T", "train-a", "elastic-a"),
                        quota("req-1", "elastic-a", QuotaStatus.MAY_BORROW, "Borrow"),
                        quota("req-1", "train-a", QuotaStatus.WITHIN_GUARANTEE, "Within"))),
                Map.of("req-1", admission(admit("req-1", "T", "train-a", "elastic-a"),
                        quota("req-1", "train-a", QuotaStatus.OVER_LIMIT, "Over"),
                        quota("req-1", "elastic-a", QuotaStatus.MAY_BORROW, "Borrow"))));

        assertThat(changes).containsExactly(new DecisionChange(Subject.REQUEST, "req-1", Aspect.QUOTA,
                "train-a=WITHIN_GUARANTEE, elastic-a=MAY_BORROW", "train-a=OVER_LIMIT, elastic-a=MAY_BORROW",
                "Within", "Over"));
    }

    @Test
    void aRequestOnlyOneSideEvaluatedIsNewOrGone() {
        List<DecisionChange> changes = requests(Map.of(),
                Map.of("req-9", admission(admit("req-9", "Dev", "dev-a"))));

        assertThat(changes).hasSize(2).allSatisfy(c -> {
            assertThat(c.before()).isEqualTo(DecisionChange.NOTHING);
            assertThat(c.ruleBefore()).isNull();
            assertThat(c.isNew()).isTrue();
        });
        assertThat(requests(Map.of("req-9", admission(admit("req-9", "Dev", "dev-a"))), Map.of()))
                .allSatisfy(c -> assertThat(c.isNew()).isFalse());
    }

    @Test
    void aLeaseBecomingAPreemptionCandidateNamesTheRequestsItMakesRoomFor() {
        Evaluation after = sweep(
                new PreemptionCandidate("req-2", "lease-1", "train-a", "ads", null, 1000, 5, "Lower priority", "v", "L", "m"),
                new PreemptionCandidate("req-1", "lease-1", "train-a", "ads", null, 1000, 5, "Lower priority", "v", "L", "m"),
                new PreemptionCandidate("req-1", "lease-1", "train-a", "ads", null, 1000, 7, "Borrowed first", "v", "L", "m"));

        List<DecisionChange> changes = DIFFER.diff(NO_SWEEP, after, Map.of(), Map.of());

        assertThat(changes).containsExactly(new DecisionChange(Subject.LEASE, "lease-1", Aspect.PREEMPTION,
                DecisionChange.NOTHING, "candidate for [req-1, req-2]", null, "Lower priority"));
    }

    @Test
    void aReclaimShowsTheCauseEnforcementWouldUseTheLowestOrder() {
        Evaluation before = sweep(new ReclaimOrder("lease-1", ReclaimCause.IDLE, 30, "Idle", "v", "I", "m"));
        Evaluation after = sweep(new ReclaimOrder("lease-1", ReclaimCause.IDLE, 30, "Idle", "v", "I", "m"),
                new ReclaimOrder("lease-1", ReclaimCause.STALE_HEARTBEAT, 10, "Stale heartbeat", "v", "S", "m"),
                new ReclaimOrder("lease-2", ReclaimCause.TTL_EXPIRED, 20, "TTL", "v", "T", "m"));

        List<DecisionChange> changes = DIFFER.diff(before, after, Map.of(), Map.of());

        assertThat(changes).containsExactly(
                new DecisionChange(Subject.LEASE, "lease-1", Aspect.RECLAIM, "IDLE", "STALE_HEARTBEAT", "Idle",
                        "Stale heartbeat"),
                new DecisionChange(Subject.LEASE, "lease-2", Aspect.RECLAIM, DecisionChange.NOTHING, "TTL_EXPIRED", null,
                        "TTL"));
    }

    @Test
    void aDevicesTierIsTheFirstAssignedAndItsLabelsAreComparedAsASortedSet() {
        Evaluation before = sweep(new TierAssignment("gpu-1", PoolTier.ELASTIC, "Any other GPU is elastic", "v", "T", "m"),
                new ProfileLabel("gpu-1", "shareable", "Shareable", "v", "L", "m"),
                new ProfileLabel("gpu-1", "nvlink", "NVLink", "v", "L", "m"),
                new ProfileLabel("gpu-2", "nvlink", "NVLink", "v", "L", "m"));
        Evaluation after = sweep(new TierAssignment("gpu-1", PoolTier.TRAINING, "NVLink H100 is training", "v", "T", "m"),
                new TierAssignment("gpu-1", PoolTier.ELASTIC, "Any other GPU is elastic", "v", "T", "m"),
                new ProfileLabel("gpu-1", "nvlink", "NVLink", "v", "L", "m"),
                new ProfileLabel("gpu-1", "shareable", "Shareable", "v", "L", "m"),
                new ProfileLabel("gpu-1", "nvlink", "NVLink again", "v", "L", "m"),
                new ProfileLabel("gpu-2", "rdma", "RDMA", "v", "L", "m"));

        List<DecisionChange> changes = DIFFER.diff(before, after, Map.of(), Map.of());

        assertThat(changes).containsExactly(
                new DecisionChange(Subject.DEVICE, "gpu-1", Aspect.TIER, "ELASTIC", "TRAINING", "Any other GPU is elastic",
                        "NVLink H100 is training"),
                new DecisionChange(Subject.DEVICE, "gpu-2", Aspect.LABELS, "[nvlink]", "[rdma]", "NVLink", "RDMA"));
    }

    @Test
    void changesAreListedByAspectThenById() {
        Evaluation before = sweep(new TierAssignment("gpu-b", PoolTier.ELASTIC, "E", "v", "T", "m"),
                new TierAssignment("gpu-a", PoolTier.ELASTIC, "E", "v", "T", "m"),
                new TierAssignment("gpu-10", PoolTier.ELASTIC, "E", "v", "T", "m"));
        Evaluation after = sweep(new TierAssignment("gpu-b", PoolTier.TRAINING, "T", "v", "T", "m"),
                new TierAssignment("gpu-a", PoolTier.TRAINING, "T", "v", "T", "m"),
                new TierAssignment("gpu-10", PoolTier.TRAINING, "T", "v", "T", "m"));
        Map<String, Evaluation> admitBefore = Map.of("req-b", admission(priority("req-b", "D", 1, false)),
                "req-a", admission(priority("req-a", "D", 1, false)));
        Map<String, Evaluation> admitAfter = Map.of("req-b", admission(priority("req-b", "D", 2, false)),
                "req-a", admission(priority("req-a", "D", 2, false)));

        List<DecisionChange> changes = DIFFER.diff(before, after, admitBefore, admitAfter);

        assertThat(changes).extracting(c -> c.aspect() + " " + c.id())
                .containsExactly("PRIORITY req-a", "PRIORITY req-b", "TIER gpu-10", "TIER gpu-a", "TIER gpu-b");
    }

    @Test
    void amongManyUnchangedDevicesOnlyTheChangedOnesAreListedInIdOrder() {
        java.util.Random random = new java.util.Random(5);
        List<Decision> before = new java.util.ArrayList<>();
        List<Decision> after = new java.util.ArrayList<>();
        java.util.TreeSet<String> changed = new java.util.TreeSet<>();
        for (int d = 0; d < 2_000; d++) {
            String device = "gpu-" + random.nextInt(1_000_000);
            if (!changed.contains(device) && before.stream().noneMatch(x -> ((TierAssignment) x).deviceId().equals(device))) {
                before.add(new TierAssignment(device, PoolTier.ELASTIC, "E", "v", "T", "m"));
                boolean moves = random.nextInt(20) == 0;
                after.add(new TierAssignment(device, moves ? PoolTier.TRAINING : PoolTier.ELASTIC, "E", "v", "T", "m"));
                if (moves) {
                    changed.add(device);
                }
            }
        }
        before.add(new TierAssignment("gone", PoolTier.ELASTIC, "E", "v", "T", "m"));
        after.add(new TierAssignment("new", PoolTier.TRAINING, "T", "v", "T", "m"));
        changed.add("gone");
        changed.add("new");

        List<DecisionChange> changes = DIFFER.diff(sweep(before.toArray(Decision[]::new)),
                sweep(after.toArray(Decision[]::new)), Map.of(), Map.of());

        assertThat(changes).extracting(DecisionChange::id).containsExactlyElementsOf(changed);
        assertThat(changes).filteredOn(c -> c.id().equals("gone")).singleElement()
                .extracting(DecisionChange::after).isEqualTo(DecisionChange.NOTHING);
        assertThat(changes).filteredOn(c -> c.id().equals("new")).singleElement()
                .extracting(DecisionChange::before).isEqualTo(DecisionChange.NOTHING);
    }
}
