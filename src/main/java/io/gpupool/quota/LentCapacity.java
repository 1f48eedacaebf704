package io.gpupool.quota;

import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.snapshot.PoolSnapshot;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How much of each quota's guarantee others borrow right now, in milli-GPU, from the live (ACTIVE or
 * PREEMPTING) borrowed leases. A borrowed lease names its lender when the quota rules grant it
 * (the lease's {@code lenderId}): an ancestor tenant whose idle guarantee its team uses
 * ("BORROW_WITHIN_ORG"), or the pool itself ("BORROW_FROM_POOL": the pool's idle guarantees at large).
 * So a quota lends
 *
 * <ul>
 * <li>what borrowed leases naming its tenant as lender hold in its pool (of its model, for a model
 * quota); plus</li>
 * <li>of what leases borrowing from the pool hold there (of its model, or of all models for a
 * {@code *} quota) by other tenants, a share in proportion to its idle guarantee (guarantee minus what its tenant's
 * own leases hold there, minus what it lends by name) among the idle guarantees of the pool's
 * quotas of the same model that hold guarantees at the bottom of the tree (no quota-holding team
 * below them, whose guarantee would be counted twice), and never more than its idle guarantee.</li>
 * </ul>
 *
 * The first is exact; the second is an attribution, since the pool does not record whose idle
 * guarantee a pool-level borrower uses (docs/reports.md, "Lent capacity per quota").
 */
final class LentCapacity {
    static final LentCapacity NONE = new LentCapacity(Map.of());

    private final Map<String, Long> lentByQuota;

    private LentCapacity(Map<String, Long> lentByQuota) {
        this.lentByQuota = lentByQuota;
    }

    static LentCapacity of(PoolSnapshot snapshot) {
        Map<String, Long> named = new HashMap<>();     // lender/pool/model → milli lent by name
        Map<String, Long> fromPool = new HashMap<>();  // pool/model → milli borrowed from the pool
        Map<String, Long> fromPoolBy = new HashMap<>(); // borrower/pool/model → milli it borrowed from the pool
        Map<String, Long> held = new HashMap<>();      // tenant/pool/model → milli its leases hold
        for (Lease lease : snapshot.leases().values()) {
            for (DeviceShare share : lease.shares()) {
                String model = snapshot.device(share.deviceId()).map(d -> d.model()).orElse(null);
                for (String m : model == null ? List.of(Quota.ANY_MODEL) : List.of(Quota.ANY_MODEL, model)) {
                    held.merge(key(lease.tenantId(), lease.poolId(), m), (long) share.milli(), Long::sum);
                    if (lease.borrowed() && lease.lenderId() != null) {
                        if (lease.lenderId().equals(lease.poolId())) {
                            fromPool.merge(key(lease.poolId(), m), (long) share.milli(), Long::sum);
                            fromPoolBy.merge(key(lease.tenantId(), lease.poolId(), m), (long) share.milli(), Long::sum);
                        } else {
                            named.merge(key(lease.lenderId(), lease.poolId(), m), (long) share.milli(), Long::sum);
                        }
                    }
                }
            }
        }
        Set<String> withTeamsHoldingQuota = new HashSet<>(); // tenant/pool/model whose guarantee a team's includes
        for (Quota q : snapshot.quotas().values()) {
            List<Tenant> lineage = snapshot.lineage(q.tenantId());
            for (Tenant ancestor : lineage.subList(Math.min(1, lineage.size()), lineage.size())) {
                withTeamsHoldingQuota.add(key(ancestor.id(), q.poolId(), q.model()));
            }
        }
        Map<String, Long> idle = new HashMap<>();
        Map<String, Long> idleSum = new HashMap<>();
        for (Quota q : snapshot.quotas().values()) {
            String k = key(q.tenantId(), q.poolId(), q.model());
            long free = Math.max(0, q.guaranteedGpus() * 1000L - held.getOrDefault(k, 0L) - named.getOrDefault(k, 0L));
            if (!withTeamsHoldingQuota.contains(k)) {
                idle.put(k, free);
                idleSum.merge(key(q.poolId(), q.model()), free, Long::sum);
            }
        }
        Map<String, Long> lent = new HashMap<>();
        for (Quota q : snapshot.quotas().values()) {
            String k = key(q.tenantId(), q.poolId(), q.model());
            long share = 0;
            long own = idle.getOrDefault(k, 0L);
            long sum = idleSum.getOrDefault(key(q.poolId(), q.model()), 0L);
            if (own > 0 && sum > 0) {
                // what others borrow: a tenant does not lend to itself
                long others = fromPool.getOrDefault(key(q.poolId(), q.model()), 0L) - fromPoolBy.getOrDefault(k, 0L);
                share = Math.min(own, Math.max(0, others) * own / sum);
            }
            lent.put(k, named.getOrDefault(k, 0L) + share);
        }
        return new LentCapacity(lent);
    }

    private static String key(String... parts) {
        return String.join("\u0000", parts);
    }

    /** The milli-GPU of {@code quota}'s guarantee others borrow now. */
    long of(Quota quota) {
        return lentByQuota.getOrDefault(key(quota.tenantId(), quota.poolId(), quota.model()), 0L);
    }
}
