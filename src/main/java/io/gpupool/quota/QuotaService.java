package io.gpupool.quota;

import io.gpupool.catalog.CardCatalog;

import io.gpupool.auth.Caller;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
            if (caller.isOrgAdmin()) {
                requireDivisionByOrgAdmin(before, quota, spec, caller);
            }
            Quota old = before.quotas().get(quota.key());
            Map<String, Quota> after = new HashMap<>(before.quotas());
            after.put(quota.key(), quota);
            Quotas.refuseOvercommitment(commitments(before, before.quotas().values()),
                    commitments(before, after.values()), List.of(spec), "The quota was not saved",
                    "send \"overcommit\": true to store it anyway");
            if (!quota.equals(old)) {
                changes.put(quota);
            }
            changes.recordApiChange("api:put-quota", "quotas", spec, old == null, caller.principal(), clock.instant());
            return old == null;
        });
    }

    /**
     * An org-admin sets the quotas of the teams below its tenant only, dividing what their parents
     * hold ({@link GuaranteeDivision}), and never over-commits a pool.
     */
    private static void requireDivisionByOrgAdmin(PoolSnapshot before, Quota quota, QuotaSpec spec, Caller caller) {
        caller.requireReach(quota.tenantId(), before);
        if (quota.tenantId().equals(caller.tenantId())) {
            throw ProblemException.forbidden("Org-admin token '" + caller.name() + "' divides the quotas of "
                    + caller.tenantId() + " among its teams; " + caller.tenantId() + "'s own quota is set by platform admins");
        }
        if (spec.overcommits()) {
            throw ProblemException.forbidden("overcommit: only platform admins may over-commit a pool");
        }
        Map<String, String> parents = new HashMap<>();
        before.tenants().values().forEach(t -> parents.put(t.id(), t.parentId()));
        List<String> refusals = GuaranteeDivision.refusals(quota, parents.get(quota.tenantId()),
                before.quotas().values(), parents);
        if (!refusals.isEmpty()) {
            throw ProblemException.unprocessable("The quota was not saved: " + refusals.get(0), refusals);
        }
    }

    /**
     * The quotas a caller may see, each with the over-commitment of its pool (or, for a model quota,
     * of that model in the pool) when the pool's guarantees exceed its GPUs.
     */
    public List<QuotaView> views(String tenant, String pool, Caller caller) {
        PoolSnapshot snapshot = workingSet.current();
        List<Quota> visible = list(tenant, pool, caller);
        Map<String, PoolCommitment> commitments = commitments(snapshot, snapshot.quotas().values());
        LentCapacity lent = LentCapacity.of(snapshot);
        return visible.stream().map(q -> QuotaView.of(q, commitments, lent)).toList();
    }

    private static Map<String, PoolCommitment> commitments(PoolSnapshot snapshot, java.util.Collection<Quota> quotas) {
        Map<String, String> parents = new HashMap<>();
        snapshot.tenants().values().forEach(t -> parents.put(t.id(), t.parentId()));
        return Commitments.of(quotas, parents, snapshot.devices().values());
    }

    public Quota delete(String tenant, String pool, String model) {
        String key = tenant + "/" + pool + "/" + CardCatalog.canonical(model);
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
