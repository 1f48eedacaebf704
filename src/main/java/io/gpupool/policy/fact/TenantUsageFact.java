package io.gpupool.policy.fact;

/**
 * One tenant's standing in one pool for one card model ({@code "*"} = all models), in milli-GPU.
 * {@code usedMilli} counts the tenant's own leases; {@code subtreeUsedMilli} adds its descendants'
 * (for an org: every team) so an org's headroom is what is left of its guarantee for the whole
 * tree. A tenant without a quota in the pool still gets a row with zero guarantee, so rules can
 * say "over limit" without a negated pattern.
 */
public record TenantUsageFact(String tenantId, String orgId, String poolId, String model, long guaranteedMilli,
                              long borrowingLimitMilli, long lendingLimitMilli, long usedMilli,
                              long borrowedMilli, long subtreeUsedMilli) {
    public static final String ANY_MODEL = "*";

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

    /** Idle guarantee this tenant lets others borrow: its unused guarantee, capped by its lending limit. */
    public long lendableMilli() {
        return Math.min(lendingLimitMilli, Math.max(0, headroomMilli()));
    }

    public boolean isAnyModel() {
        return ANY_MODEL.equals(model);
    }
}
