package io.gpupool.quota;

import io.gpupool.domain.tenancy.Quota;
import io.gpupool.auth.Caller;
import io.gpupool.fleet.FleetDocument;
import io.gpupool.fleet.FleetDocument.QuotaSpec;
import io.gpupool.fleet.FleetImporter;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Singleton;

import java.util.Comparator;
import java.util.List;

/** Sets, removes and lists quotas; a tenant caller sees only the quotas of tenants it reaches. */
@Singleton
public class QuotaService {
    private final FleetImporter importer;
    private final WorkingSet workingSet;

    QuotaService(FleetImporter importer, WorkingSet workingSet) {
        this.importer = importer;
        this.workingSet = workingSet;
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
        String model = spec.model() == null ? Quota.ANY_MODEL : spec.model();
        boolean existed = workingSet.current().quotas().containsKey(new Quota(spec.tenant(), spec.pool(), model, 0, 0, 0).key());
        importer.importDocument(new FleetDocument(null, null, null, null, null, List.of(spec)), "api:put-quota",
                caller.principal(), before -> { });
        return !existed;
    }

    public Quota delete(String tenant, String pool, String model) {
        String key = tenant + "/" + pool + "/" + model;
        return workingSet.write((before, next, store) -> {
            Quota quota = before.quotas().get(key);
            if (quota == null) {
                throw ProblemException.notFound("quota", key);
            }
            store.deleteQuota(key);
            next.removeQuota(key);
            return quota;
        });
    }
}
