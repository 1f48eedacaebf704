package io.gpupool.quota;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.tenancy.Quota;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Guarantees summed per pool (all models) and per pool and card model, against the pool's cards.
 *
 * <p>A child's guarantee is carved out of its parent's, so a tree counts once: a tenant stands for
 * {@code max(own, sum of its children)}, and the pool's total is the sum over its tree roots. A
 * parent that guarantees less than its children together, or has no quota at all, therefore counts
 * what the children are promised. A tenant's own guarantee for all models is at least its model
 * quotas together (they are consumed from the same all-models headroom). The design note is
 * docs/policy-authoring.md, "Quotas that add up".
 */
public final class Commitments {
    private Commitments() {
    }

    /** Every pool's and every quota'd model's commitment, keyed {@code pool/model}. */
    public static Map<String, PoolCommitment> of(Collection<Quota> quotas, Map<String, String> parentOf,
                                                 Collection<Device> devices) {
        Map<String, Integer> cards = new HashMap<>();
        for (Device d : devices) {
            if (d.poolId() != null) {
                cards.merge(d.poolId() + "/" + Quota.ANY_MODEL, 1, Integer::sum);
                cards.merge(d.poolId() + "/" + d.model(), 1, Integer::sum);
            }
        }
        // key pool/model → tenant → own guarantee
        Map<String, Map<String, Integer>> own = new TreeMap<>();
        for (Quota q : quotas) {
            own.computeIfAbsent(q.poolId() + "/" + q.model(), k -> new HashMap<>())
                    .merge(q.tenantId(), q.guaranteedGpus(), Integer::sum);
            if (!Quota.ANY_MODEL.equals(q.model())) {
                own.computeIfAbsent(q.poolId() + "/" + Quota.ANY_MODEL, k -> new HashMap<>());
            }
        }
        Map<String, PoolCommitment> result = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, Integer>> e : own.entrySet()) {
            String pool = e.getKey().substring(0, e.getKey().lastIndexOf('/'));
            String model = e.getKey().substring(e.getKey().lastIndexOf('/') + 1);
            Map<String, Integer> guarantees = new HashMap<>(e.getValue());
            if (Quota.ANY_MODEL.equals(model)) {
                Map<String, Integer> byModels = new HashMap<>();
                quotas.stream().filter(q -> q.poolId().equals(pool) && !Quota.ANY_MODEL.equals(q.model()))
                        .forEach(q -> byModels.merge(q.tenantId(), q.guaranteedGpus(), Integer::sum));
                byModels.forEach((tenant, sum) -> guarantees.merge(tenant, sum, Math::max));
            }
            result.put(e.getKey(), PoolCommitment.of(pool, model, cards.getOrDefault(e.getKey(), 0),
                    total(guarantees, parentOf)));
        }
        return result;
    }

    /**
     * Why a write must be refused: each pool among {@code checkedPools} (the pools it sets quotas in)
     * that it leaves over-committed by more than before, for all models or for a card model, unless
     * the pool is among {@code allowedPools} (the write says "overcommit"). Empty when it may go.
     */
    public static List<String> refusals(Map<String, PoolCommitment> before, Map<String, PoolCommitment> after,
                                        Set<String> checkedPools, Set<String> allowedPools) {
        List<String> refusals = new ArrayList<>();
        for (PoolCommitment now : after.values()) {
            PoolCommitment was = before.get(now.poolId() + "/" + now.model());
            int overBefore = was == null ? 0 : was.overByGpus();
            if (checkedPools.contains(now.poolId()) && !allowedPools.contains(now.poolId())
                    && now.exceedsPool() && now.overByGpus() > overBefore) {
                refusals.add(now.describe("would total"));
            }
        }
        return refusals;
    }

    /** The sum over tree roots of {@code max(own, children)}; tenants without a guarantee pass their children's up. */
    private static int total(Map<String, Integer> guarantees, Map<String, String> parentOf) {
        Map<String, Integer> standing = new HashMap<>();
        Map<String, List<String>> children = new HashMap<>();
        Set<String> involved = new HashSet<>();
        for (String tenant : guarantees.keySet()) {
            Set<String> seen = new HashSet<>();
            for (String at = tenant; at != null && seen.add(at); at = parentOf.get(at)) {
                if (involved.add(at) && parentOf.get(at) != null) {
                    children.computeIfAbsent(parentOf.get(at), k -> new ArrayList<>()).add(at);
                }
            }
        }
        int total = 0;
        for (String tenant : involved) {
            if (parentOf.get(tenant) == null || !involved.contains(parentOf.get(tenant))) {
                total += standing(tenant, guarantees, children, standing);
            }
        }
        return total;
    }

    private static int standing(String tenant, Map<String, Integer> guarantees, Map<String, List<String>> children,
                                Map<String, Integer> memo) {
        Integer known = memo.get(tenant);
        if (known != null) {
            return known;
        }
        int below = 0;
        for (String child : children.getOrDefault(tenant, List.of())) {
            below += standing(child, guarantees, children, memo);
        }
        int value = Math.max(guarantees.getOrDefault(tenant, 0), below);
        memo.put(tenant, value);
        return value;
    }
}
