package io.gpupool.policy.fact;

import io.gpupool.lease.Lease;
import io.gpupool.snapshot.PoolSnapshot;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Lease facts of one evaluation second, reused across snapshot versions. A preemption evaluation
 * hands policy every lease of the pools in question (20,000 at the benchmark's scale); deriving
 * them again for each queued request would cost more than the rules. A cached fact is reused while
 * the second is the same and the lease is the very same object (a changed lease is a new record),
 * so the result equals a fresh derivation. Only for facts without usage samples (the decision path);
 * it lives as long as the tenants and devices it read, i.e. until the {@link FactsTracker} rebuilds.
 */
final class LeaseFactCache {
    private final Map<String, TenantFact> tenants;
    private long second = Long.MIN_VALUE;
    private final Map<String, Cached> byLease = new HashMap<>();

    LeaseFactCache(Map<String, TenantFact> tenants) {
        this.tenants = tenants;
    }

    synchronized List<LeaseFact> facts(PoolSnapshot snapshot, Collection<Lease> leases, Instant now) {
        if (now.getNano() != 0) { // ages at a fractional instant would differ within the second: not cacheable
            return LeaseFacts.derive(snapshot, leases, now, tenants, Map.of(), UsageWindow.DEFAULT);
        }
        if (now.getEpochSecond() != second) {
            byLease.clear();
            second = now.getEpochSecond();
        }
        List<LeaseFact> facts = new ArrayList<>(leases.size());
        List<Lease> missing = new ArrayList<>();
        for (Lease lease : leases) {
            Cached c = byLease.get(lease.id());
            if (c == null || c.lease != lease) {
                missing.add(lease);
            }
        }
        if (!missing.isEmpty()) {
            List<LeaseFact> derived = LeaseFacts.derive(snapshot, missing, now, tenants, Map.of(), UsageWindow.DEFAULT);
            for (int i = 0; i < missing.size(); i++) {
                byLease.put(missing.get(i).id(), new Cached(missing.get(i), derived.get(i)));
            }
        }
        for (Lease lease : leases) {
            facts.add(byLease.get(lease.id()).fact);
        }
        return facts;
    }

    private record Cached(Lease lease, LeaseFact fact) {
    }
}
