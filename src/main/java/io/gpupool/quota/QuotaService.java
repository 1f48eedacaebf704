package io.gpupool.quota;

import io.gpupool.auth.Caller;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.util.Comparator;
import java.util.List;

/**
 * Sets, removes and lists quotas; a tenant caller sees only the quotas of tenants it reaches.
 * Checked by {@link Quotas}, the same rules a fleet document's quotas follow.
 */
@Singleton
public class QuotaService {
    private final WorkingSet workingSet;
    private final Clock clock;

    QuotaService(WorkingSet workingSet, Clock clock) {
        this.workingSet = workingSet;
        this.clock = clock;
    }

    public List<Quota> list(String tenant, String pool, Caller caller) {
        PoolSnapshot snapshot = workingSet.current();
        if (tenant != null) {
            snapshot.tenant(tenant).orElseThrow(() -> ProblemException.notFound("tenant", tenant));
            caller.requireReach(tenant, snapshot);
        }
        return snapshot.quotas().values().stream()
                .filter(q -> tenant == null || tenant.equals(q.tenantId()))
                .filter(q -> pool == null || pool.equals(q.poolId()))
                .filter(q -> caller.reaches(q.tenantId(), snapshot))
                .sorted(Comparator.comparing(Quota::key)).toList();
    }

    /** Creates or replaces the quota with the spec's key; true when it was created. */
    public boolean put(QuotaSpec spec, Caller caller) {
        if (spec == null) {
            throw ProblemException.invalid("A quota body is required");
        }
        return workingSet.write((before, changes) -> {
            FieldChecks check = new FieldChecks();
            Quota quota = Quotas.resolve(List.of(spec), before.tenants().keySet(), before.pools().keySet(), check).get(0);
            check.throwIfAny("The quota was not saved");
            Quota old = before.quotas().get(quota.key());
            if (!quota.equals(old)) {
                changes.put(quota);
            }
            changes.recordApiChange("api:put-quota", "quotas", spec, old == null, caller.principal(), clock.instant());
            return old == null;
        });
    }

    public Quota delete(String tenant, String pool, String model) {
        String key = tenant + "/" + pool + "/" + model;
        return workingSet.write((before, changes) -> {
            Quota quota = before.quotas().get(key);
            if (quota == null) {
                throw ProblemException.notFound("quota", key);
            }
            changes.removeQuota(key);
            return quota;
        });
    }
}
