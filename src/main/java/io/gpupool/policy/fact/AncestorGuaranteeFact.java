package io.gpupool.policy.fact;

/**
 * What a tenant may use of one ancestor's guarantee in one pool (all models), in milli-GPU: the
 * ancestor's headroom, which already counts the idle guarantee of everyone below it, less what the
 * ancestor's other subtrees withhold by their lending limits at every level between the two
 * ({@code withheldMilli}). {@code distance} is 1 for the parent, 2 for the grandparent, … so rules
 * can borrow level by level, nearest first. One per tenant, ancestor and pool; only the requesting
 * tenants' are in an evaluation.
 */
public record AncestorGuaranteeFact(String tenantId, String poolId, String ancestorId, int distance,
                                    long headroomMilli, long withheldMilli) {
    /** The ancestor's idle guarantee this tenant may borrow (negative when the ancestor's tree already borrows). */
    public long availableMilli() {
        return headroomMilli - withheldMilli;
    }
}
