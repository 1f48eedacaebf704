package io.gpupool.quota;

import io.gpupool.domain.tenancy.Quota;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How an org-admin may divide its guarantee among its teams: a team's quota in a pool draws on its
 * parent's quota there (the parent's row for the same card model, else its all-models row), so
 * the guarantees of the parent's children in that pool together stay within the parent's
 * guarantee, and no team may ever hold more (guarantee plus borrowing limit) than its parent may.
 * Each refusal states its arithmetic. Platform admins are not bound by it (they set the
 * organisation's own quotas and may over-commit knowingly, see {@link Commitments}).
 */
public final class GuaranteeDivision {
    private GuaranteeDivision() {
    }

    /**
     * Why {@code proposed} (a quota of a team whose parent is {@code parentId}) may not be set, given
     * the quotas before it ({@code quotas}) and every tenant's parent; empty when it may.
     */
    public static List<String> refusals(Quota proposed, String parentId, Collection<Quota> quotas,
                                        Map<String, String> parents) {
        Optional<Quota> parentQuota = parentQuota(parentId, proposed, quotas);
        if (parentQuota.isEmpty()) {
            return List.of(parentId + " has no guarantee in pool " + proposed.poolId() + " to divide"
                    + (Quota.ANY_MODEL.equals(proposed.model()) ? "" : " for " + proposed.model())
                    + "; a platform admin sets it first");
        }
        Quota parent = parentQuota.get();
        List<Quota> after = new ArrayList<>(quotas.stream().filter(q -> !q.key().equals(proposed.key())).toList());
        after.add(proposed);
        List<String> refusals = new ArrayList<>();
        List<String> terms = new ArrayList<>();
        long total = 0;
        for (Map.Entry<String, String> child : new java.util.TreeMap<>(parents).entrySet()) {
            if (!parentId.equals(child.getValue())) {
                continue;
            }
            int share = share(child.getKey(), parent, after);
            if (share > 0 || child.getKey().equals(proposed.tenantId())) {
                terms.add(child.getKey() + " " + share);
                total += share;
            }
        }
        if (total > parent.guaranteedGpus()) {
            long left = parent.guaranteedGpus() - (total - proposed.guaranteedGpus());
            refusals.add("the guarantees of " + parentId + "'s teams in pool " + proposed.poolId() + " would be "
                    + String.join(" + ", terms) + " = " + total + " GPUs, beyond " + parentId + "'s guarantee of "
                    + parent.guaranteedGpus() + "; at most " + Math.max(0, left) + " is left for " + proposed.tenantId());
        }
        long teamMost = (long) proposed.guaranteedGpus() + proposed.borrowingLimit();
        long parentMost = (long) parent.guaranteedGpus() + parent.borrowingLimit();
        if (teamMost > parentMost) {
            refusals.add(proposed.tenantId() + "'s guarantee " + proposed.guaranteedGpus() + " + borrowing limit "
                    + proposed.borrowingLimit() + " = " + teamMost + " GPUs is beyond " + parentId + "'s guarantee "
                    + parent.guaranteedGpus() + " + borrowing limit " + parent.borrowingLimit() + " = " + parentMost);
        }
        return refusals;
    }

    /** The parent's row the team draws on: the same card model's, else all models'. */
    private static Optional<Quota> parentQuota(String parentId, Quota proposed, Collection<Quota> quotas) {
        Optional<Quota> sameModel = quotas.stream().filter(q -> q.tenantId().equals(parentId)
                && q.poolId().equals(proposed.poolId()) && q.model().equals(proposed.model())).findFirst();
        return sameModel.or(() -> quotas.stream().filter(q -> q.tenantId().equals(parentId)
                && q.poolId().equals(proposed.poolId()) && Quota.ANY_MODEL.equals(q.model())).findFirst());
    }

    /**
     * What a sibling takes of the parent's row: against a model row, its row for that model; against
     * the all-models row, its all-models row if it has one, else its model rows together.
     */
    private static int share(String child, Quota parent, Collection<Quota> quotas) {
        List<Quota> own = quotas.stream().filter(q -> q.tenantId().equals(child) && q.poolId().equals(parent.poolId()))
                .toList();
        if (!Quota.ANY_MODEL.equals(parent.model())) {
            return own.stream().filter(q -> q.model().equals(parent.model())).mapToInt(Quota::guaranteedGpus).sum();
        }
        return own.stream().filter(q -> Quota.ANY_MODEL.equals(q.model())).mapToInt(Quota::guaranteedGpus).findFirst()
                .orElseGet(() -> own.stream().mapToInt(Quota::guaranteedGpus).sum());
    }
}
