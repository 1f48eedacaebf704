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
        return headroomMilli() - withheldMilli();
    }

    // The ancestor's headroom and what is withheld from it move with every placement and release:
    // each read of them is noted for the evaluation that makes it (FactReads).

    public long headroomMilli() {
        return FactReads.noted(this, FactReads.Moving.ANCESTOR_HEADROOM, headroomMilli);
    }

    public long withheldMilli() {
        return FactReads.noted(this, FactReads.Moving.ANCESTOR_WITHHELD, withheldMilli);
    }

    /** Whether {@code other} is equal to this but for the moving headroom ({@link FactReads#sameApartFromMoving}), building nothing. */
    boolean sameFixedPart(AncestorGuaranteeFact other) {
        return java.util.Objects.equals(tenantId, other.tenantId) && java.util.Objects.equals(poolId, other.poolId)
                && java.util.Objects.equals(ancestorId, other.ancestorId) && distance == other.distance;
    }

    // As a record's own equals, hashCode and toString, reading the moving components through their accessors.

    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof AncestorGuaranteeFact g && java.util.Objects.equals(tenantId, g.tenantId)
                && java.util.Objects.equals(poolId, g.poolId) && java.util.Objects.equals(ancestorId, g.ancestorId)
                && distance == g.distance && headroomMilli() == g.headroomMilli() && withheldMilli() == g.withheldMilli();
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(tenantId);
        h = 31 * h + java.util.Objects.hashCode(poolId);
        h = 31 * h + java.util.Objects.hashCode(ancestorId);
        h = 31 * h + Integer.hashCode(distance);
        h = 31 * h + Long.hashCode(headroomMilli());
        return 31 * h + Long.hashCode(withheldMilli());
    }

    @Override
    public String toString() {
        return "AncestorGuaranteeFact[tenantId=" + tenantId + ", poolId=" + poolId + ", ancestorId=" + ancestorId
                + ", distance=" + distance + ", headroomMilli=" + headroomMilli() + ", withheldMilli=" + withheldMilli() + "]";
    }
}
