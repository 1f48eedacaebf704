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
        return guaranteedMilli - subtreeUsedMilli();
    }

    /** How much of the request would exceed the guarantee (0 when it fits). */
    public long excessMilli(RequestFact request) {
        return Math.max(0, request.totalMilli() - Math.max(0, headroomMilli()));
    }

    /** Borrowing the tenant may still do before reaching its borrowing limit. */
    public long borrowRoomMilli() {
        return Math.max(0, borrowingLimitMilli - borrowedMilli());
    }

    /**
     * Idle guarantee of this subtree that tenants outside it may borrow: its headroom less what its
     * children withhold, capped by its own lending limit. Lending limits so apply at every level.
     */
    public long lendableMilli() {
        return Math.min(lendingLimitMilli, Math.max(0, headroomMilli() - withheldBelowMilli()));
    }

    /** Idle guarantee of this subtree that tenants outside it may not borrow (its lending limits, here and below). */
    public long withheldMilli() {
        return Math.max(0, headroomMilli()) - lendableMilli();
    }

    public boolean isAnyModel() {
        return ANY_MODEL.equals(model);
    }

    // What the tenant uses, borrows and its children withhold moves with every placement and release:
    // each read of them is noted for the evaluation that makes it (FactReads), here and in every
    // method that derives from them.

    public long usedMilli() {
        return FactReads.noted(this, FactReads.Moving.USAGE_USED, usedMilli);
    }

    public long borrowedMilli() {
        return FactReads.noted(this, FactReads.Moving.USAGE_BORROWED, borrowedMilli);
    }

    public long subtreeUsedMilli() {
        return FactReads.noted(this, FactReads.Moving.USAGE_SUBTREE_USED, subtreeUsedMilli);
    }

    public long withheldBelowMilli() {
        return FactReads.noted(this, FactReads.Moving.USAGE_WITHHELD_BELOW, withheldBelowMilli);
    }

    /** Whether {@code other} is equal to this but for the moving usage ({@link FactReads#sameApartFromMoving}), building nothing. */
    boolean sameFixedPart(TenantUsageFact other) {
        return java.util.Objects.equals(tenantId, other.tenantId) && java.util.Objects.equals(orgId, other.orgId)
                && java.util.Objects.equals(poolId, other.poolId) && java.util.Objects.equals(model, other.model)
                && guaranteedMilli == other.guaranteedMilli && borrowingLimitMilli == other.borrowingLimitMilli
                && lendingLimitMilli == other.lendingLimitMilli;
    }

    // As a record's own equals, hashCode and toString (component by component, hash 31 * h + component),
    // reading the moving components through their accessors so that an evaluation comparing,
    // hashing or printing a row notes that it read them.

    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof TenantUsageFact u && java.util.Objects.equals(tenantId, u.tenantId)
                && java.util.Objects.equals(orgId, u.orgId) && java.util.Objects.equals(poolId, u.poolId)
                && java.util.Objects.equals(model, u.model) && guaranteedMilli == u.guaranteedMilli
                && borrowingLimitMilli == u.borrowingLimitMilli && lendingLimitMilli == u.lendingLimitMilli
                && usedMilli() == u.usedMilli() && borrowedMilli() == u.borrowedMilli()
                && subtreeUsedMilli() == u.subtreeUsedMilli() && withheldBelowMilli() == u.withheldBelowMilli();
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(tenantId);
        h = 31 * h + java.util.Objects.hashCode(orgId);
        h = 31 * h + java.util.Objects.hashCode(poolId);
        h = 31 * h + java.util.Objects.hashCode(model);
        h = 31 * h + Long.hashCode(guaranteedMilli);
        h = 31 * h + Long.hashCode(borrowingLimitMilli);
        h = 31 * h + Long.hashCode(lendingLimitMilli);
        h = 31 * h + Long.hashCode(usedMilli());
        h = 31 * h + Long.hashCode(borrowedMilli());
        h = 31 * h + Long.hashCode(subtreeUsedMilli());
        return 31 * h + Long.hashCode(withheldBelowMilli());
    }

    @Override
    public String toString() {
        return "TenantUsageFact[tenantId=" + tenantId + ", orgId=" + orgId + ", poolId=" + poolId + ", model=" + model
                + ", guaranteedMilli=" + guaranteedMilli + ", borrowingLimitMilli=" + borrowingLimitMilli
                + ", lendingLimitMilli=" + lendingLimitMilli + ", usedMilli=" + usedMilli() + ", borrowedMilli="
                + borrowedMilli() + ", subtreeUsedMilli=" + subtreeUsedMilli() + ", withheldBelowMilli="
                + withheldBelowMilli() + "]";
    }
}
