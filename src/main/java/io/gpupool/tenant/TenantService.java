package io.gpupool.tenant;

import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.auth.Caller;
import io.gpupool.fleet.FleetDocument;
import io.gpupool.fleet.FleetDocument.TenantSpec;
import io.gpupool.fleet.FleetImporter;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import jakarta.inject.Singleton;

import java.util.Comparator;
import java.util.List;

/** Creates, updates and lists tenants; writes go through the fleet importer so validation is shared. */
@Singleton
public class TenantService {
    private final FleetImporter importer;

    TenantService(FleetImporter importer) {
        this.importer = importer;
    }

    public List<Tenant> visibleTo(Caller caller) {
        PoolSnapshot snapshot = importer.current();
        return snapshot.tenants().values().stream().filter(t -> caller.reaches(t.id(), snapshot))
                .sorted(Comparator.comparing(Tenant::id)).toList();
    }

    public Tenant get(String id, Caller caller) {
        PoolSnapshot snapshot = importer.current();
        Tenant tenant = snapshot.tenant(id).orElseThrow(() -> ProblemException.notFound("tenant", id));
        caller.requireReach(id, snapshot);
        return tenant;
    }

    public Tenant create(TenantSpec spec, Caller caller) {
        require(spec);
        importer.importDocument(document(spec), "api:create-tenant", caller.principal(), before -> {
            if (before.tenant(spec.id()).isPresent()) {
                throw ProblemException.conflict("Tenant '" + spec.id() + "' already exists");
            }
        });
        return importer.current().tenant(spec.id()).orElseThrow();
    }

    public Tenant update(String id, TenantSpec spec, Caller caller) {
        require(spec);
        if (!id.equals(spec.id())) {
            throw ProblemException.invalid("The body's id '" + spec.id() + "' differs from the path's '" + id + "'");
        }
        importer.importDocument(document(spec), "api:update-tenant", caller.principal(), before -> {
            if (before.tenant(id).isEmpty()) {
                throw ProblemException.notFound("tenant", id);
            }
        });
        return importer.current().tenant(id).orElseThrow();
    }

    private static void require(TenantSpec spec) {
        if (spec == null) {
            throw ProblemException.invalid("A tenant body is required");
        }
    }

    private static FleetDocument document(TenantSpec spec) {
        return new FleetDocument(null, null, null, null, List.of(spec), null);
    }
}
