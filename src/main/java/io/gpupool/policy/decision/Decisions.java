package io.gpupool.policy.decision;

import io.gpupool.policy.fact.DeviceFact;
import io.gpupool.policy.fact.LeaseFact;
import io.gpupool.policy.fact.PoolFact;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.domain.request.Approvers;
import io.gpupool.domain.tenancy.PoolTier;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The result collector rule files reach as the global {@code decisions}: one instance per
 * evaluation, never shared. Each method records a decision stamped with the firing rule's name and
 * the policy version, so an author cannot mislabel a decision, and inserts it into the session when
 * some rule matches that decision type (classify, then decide: quota rules match admissions).
 * Names of tiers, statuses and causes are strings in rules; a wrong one fails the evaluation.
 */
public final class Decisions {
    private final String policyVersion;
    private final Consumer<Object> session;
    private final Set<Class<?>> matchedTypes;
    private final List<Decision> recorded = new ArrayList<>();
    private String currentRule = "(outside a rule)";

    public Decisions(String policyVersion, Consumer<Object> session, Set<Class<?>> matchedTypes) {
        this.policyVersion = policyVersion;
        this.session = session;
        this.matchedTypes = matchedTypes;
    }

    /** Called by the engine before each consequence runs; not for rule files (the linter rejects it). */
    public void onRuleFiring(String ruleName) {
        currentRule = ruleName;
    }

    public List<Decision> recorded() {
        return List.copyOf(recorded);
    }

    public void tier(DeviceFact device, String tier, String reasonCode, String message) {
        record(new TierAssignment(device.deviceId(), PoolTier.valueOf(tier), currentRule, policyVersion,
                reasonCode, message));
    }

    public void label(DeviceFact device, String label, String reasonCode, String message) {
        record(new ProfileLabel(device.deviceId(), label, currentRule, policyVersion, reasonCode, message));
    }

    /**
     * Admits to the given pools ordered by {@code tierOrder} (pools of other tiers are dropped), then
     * by most free capacity, then id. No pool left means a rejection with reason NO_ELIGIBLE_POOL.
     */
    public void admit(RequestFact request, Collection<PoolFact> pools, List<String> tierOrder, String reasonCode,
                      String message) {
        List<String> ordered = pools.stream()
                .filter(p -> tierOrder.contains(p.tier()))
                .sorted(Comparator.comparingInt((PoolFact p) -> tierOrder.indexOf(p.tier()))
                        .thenComparing((a, b) -> b.compareFreeMilli(a)) // most free first; only the order is noted
                        .thenComparing(PoolFact::poolId))
                .map(PoolFact::poolId)
                .toList();
        if (ordered.isEmpty()) {
            reject(request, "NO_ELIGIBLE_POOL", message + " (no pool of tier " + tierOrder + " can host it)");
        } else {
            admitTo(request, ordered, reasonCode, message);
        }
    }

    /** Admits to exactly these pools, in this order. */
    public void admitTo(RequestFact request, List<String> poolIds, String reasonCode, String message) {
        record(new AdmissionDecision(request.requestId(), true, poolIds, currentRule, policyVersion, reasonCode,
                message));
    }

    public void reject(RequestFact request, String reasonCode, String message) {
        record(new AdmissionDecision(request.requestId(), false, List.of(), currentRule, policyVersion, reasonCode,
                message));
    }

    public void priority(RequestFact request, int priority, boolean preemptible, String reasonCode, String message) {
        record(new PriorityAssignment(request.requestId(), priority, preemptible, currentRule, policyVersion,
                reasonCode, message));
    }

    public void quota(RequestFact request, String poolId, String status, String lenderId, String reasonCode,
                      String message) {
        record(new QuotaVerdict(request.requestId(), request.tenantId(), poolId, QuotaVerdict.ANY_MODEL,
                QuotaStatus.valueOf(status), lenderId, currentRule, policyVersion, reasonCode, message));
    }

    /** A verdict from the tenant's quota on one card model (for a request that can only land on that model in the pool). */
    public void modelQuota(RequestFact request, String poolId, String model, String status, String lenderId,
                           String reasonCode, String message) {
        record(new QuotaVerdict(request.requestId(), request.tenantId(), poolId, model, QuotaStatus.valueOf(status),
                lenderId, currentRule, policyVersion, reasonCode, message));
    }

    public void preempt(RequestFact request, LeaseFact victim, long orderKey, String reasonCode, String message) {
        record(new PreemptionCandidate(request.requestId(), victim.leaseId(), victim.poolId(), victim.tenantId(),
                victim.gangId(), victim.gpuMilli(), orderKey, currentRule, policyVersion, reasonCode, message));
    }

    public void reclaim(LeaseFact lease, String cause, long order, String reasonCode, String message) {
        ReclaimCause why = ReclaimCause.valueOf(cause);
        record(new ReclaimOrder(lease.leaseId(), why, order, currentRule, policyVersion, reasonCode, message,
                why == ReclaimCause.IDLE && lease.sampled() ? lease.idleSeconds() : -1));
    }

    /**
     * The request waits for approval by {@code approvers} (ORG_ADMIN or PLATFORM_ADMIN) before it
     * may take capacity; ignored for a request already approved (rules test {@code approved}).
     */
    public void requireApproval(RequestFact request, String approvers, String reasonCode, String message) {
        record(new ApprovalRequirement(request.requestId(), Approvers.valueOf(approvers), currentRule, policyVersion,
                reasonCode, message));
    }

    private void record(Decision decision) {
        recorded.add(decision);
        if (matchedTypes.contains(decision.getClass())) {
            session.accept(decision);
        }
    }
}
