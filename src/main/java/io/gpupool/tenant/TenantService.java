package io.gpupool.tenant;

import io.gpupool.auth.Caller;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.util.Comparator;
import java.util.List;

/**
 * Creates, updates and lists tenants. Checked by {@link TenantTree}, the same rules a fleet
 * document's tenants follow; each change is recorded with who made it, as an import is.
 */
@Singleton
public class TenantService {
    private final WorkingSet workingSet;
    private final Clock clock;

    TenantService(WorkingSet workingSet, Clock clock) {
        this.workingSet = workingSet;
        this.clock = clock;
    }

    public List<Tenant> visibleTo(Caller caller) {
        PoolSnapshot snapshot = workingSet.current();
        return snapshot.tenants().values().stream().filter(t -> caller.reaches(t.id(), snapshot))
                .sorted(Comparator.comparing(Tenant::id)).toList();
    }

    public Tenant get(String id, Caller caller) {
        PoolSnapshot snapshot = workingSet.current();
        Tenant tenant = snapshot.tenant(id).orElseThrow(() -> ProblemException.notFound("tenant", id));
        caller.requireReach(id, snapshot);
        return tenant;
    }

    public Tenant create(TenantSpec spec, Caller caller) {
        require(spec);
        return save(spec, "api:create-tenant", caller, before -> {
            if (before.tenant(spec.id()).isPresent()) {
                throw ProblemException.conflict("Tenant '" + io.gpupool.problem.FieldChecks.excerpt(spec.id()) + "' already exists");
            }
        });
    }

    public Tenant update(String id, TenantSpec spec, Caller caller) {
        require(spec);
        if (!id.equals(spec.id())) {
            throw ProblemException.invalid("The body's id '" + io.gpupool.problem.FieldChecks.excerpt(spec.id()) + "' differs from the path's '"
                    + io.gpupool.problem.FieldChecks.excerpt(id) + "'");
        }
        return save(spec, "api:update-tenant", caller, before -> {
            if (before.tenant(id).isEmpty()) {
                throw ProblemException.notFound("tenant", id);
            }
        });
    }

    private Tenant save(TenantSpec spec, String source, Caller caller, java.util.function.Consumer<PoolSnapshot> precondition) {
        return workingSet.write((before, changes) -> {
            precondition.accept(before);
            FieldChecks check = new FieldChecks();
            List<TenantSpec> specs = List.of(spec);
            Tenant tenant = TenantTree.resolve(specs, before.tenants(),
                    check.ids("tenants", specs.stream().map(TenantSpec::id).toList(), before.tenants().keySet()),
                    check).get(0);
            check.throwIfAny("The tenant was not saved");
            boolean created = before.tenant(tenant.id()).isEmpty();
            if (!tenant.equals(before.tenant(tenant.id()).orElse(null))) {
                changes.put(tenant);
            }
            changes.recordApiChange(source, "tenants", spec, created, caller.principal(), clock.instant());
            return tenant;
        });
    }

    private static void require(TenantSpec spec) {
        if (spec == null) {
            throw ProblemException.invalid("A tenant body is required");
        }
    }
}
