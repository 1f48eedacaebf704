package io.gpupool.policy.fact;

/**
 * One tenant's standing in one pool for one card model ({@code "*"} = all models), in milli-GPU.
 * {@code usedMilli} counts the tenant's own leases; {@code subtreeUsedMilli} adds its descendants'
 * (for an org: every team) so a tenant's headroom is what is left of its guarantee for its whole
 * subtree. {@code withheldBelowMilli} is the part of that headroom its children keep from the rest
 * of the tree by their lending limits (all-models rows; 0 on model rows). A tenant without a quota
 * in the pool still gets a row with zero guarantee, so rules can say "over limit" without a negated
 * pattern.
 */
public record TenantUsageFact(String tenantId, String orgId, String poolId, String model, long guaranteedMilli,
                              long borrowingLimitMilli, long lendingLimitMilli, long usedMilli,
                              long borrowedMilli, long subtreeUsedMilli, long withheldBelowMilli) {
    public static final String ANY_MODEL = "*";

    /** A row whose children withhold nothing (every leaf, and tests). */
    public TenantUsageFact(String tenantId, String orgId, String poolId, String model, long guaranteedMilli,
                           long borrowingLimitMilli, long lendingLimitMilli, long usedMilli,
                           long borrowedMilli, long subtreeUsedMilli) {
        this(tenantId, orgId, poolId, model, guaranteedMilli, borrowingLimitMilli, lendingLimitMilli, usedMilli,
                borrowedMilli, subtreeUsedMilli, 0);
    }

    /** Guarantee not yet used by the tenant's tree; negative when the tree already borrows. */
    public long headroomMilli() {
        return guaranteedMilli - subtreeUsedMilli;
    }

    /** How much of the request would exceed the guarantee (0 when it fits). */
    public long excessMilli(RequestFact request) {
        return Math.max(0, request.totalMilli() - Math.max(0, headroomMilli()));
    }

    /** Borrowing the tenant may still do before reaching its borrowing limit. */
    public long borrowRoomMilli() {
        return Math.max(0, borrowingLimitMilli - borrowedMilli);
    }

    /**
     * Idle guarantee of this subtree that tenants outside it may borrow: its headroom less what its
     * children withhold, capped by its own lending limit. Lending limits so apply at every level.
     */
    public long lendableMilli() {
        return Math.min(lendingLimitMilli, Math.max(0, headroomMilli() - withheldBelowMilli));
    }

    /** Idle guarantee of this subtree that tenants outside it may not borrow (its lending limits, here and below). */
    public long withheldMilli() {
        return Math.max(0, headroomMilli()) - lendableMilli();
    }

    public boolean isAnyModel() {
        return ANY_MODEL.equals(model);
    }
}
