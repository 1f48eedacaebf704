package io.gpupool.pool;

import io.gpupool.domain.tenancy.Pool;
import io.gpupool.auth.Caller;
import io.gpupool.fleet.FleetDocument;
import io.gpupool.fleet.FleetDocument.PoolSpec;
import io.gpupool.fleet.FleetImporter;
import io.gpupool.problem.ProblemException;
import jakarta.inject.Singleton;

import java.util.Comparator;
import java.util.List;

/** Creates, updates and lists pools; writes go through the fleet importer so validation is shared. */
@Singleton
public class PoolService {
    private final FleetImporter importer;

    PoolService(FleetImporter importer) {
        this.importer = importer;
    }

    public List<Pool> list() {
        return importer.current().pools().values().stream().sorted(Comparator.comparing(Pool::id)).toList();
    }

    public Pool get(String id) {
        return importer.current().pool(id).orElseThrow(() -> ProblemException.notFound("pool", id));
    }

    public Pool create(PoolSpec spec, Caller caller) {
        require(spec);
        importer.importDocument(document(spec), "api:create-pool", caller.principal(), before -> {
            if (before.pool(spec.id()).isPresent()) {
                throw ProblemException.conflict("Pool '" + spec.id() + "' already exists");
            }
        });
        return get(spec.id());
    }

    public Pool update(String id, PoolSpec spec, Caller caller) {
        require(spec);
        if (!id.equals(spec.id())) {
            throw ProblemException.invalid("The body's id '" + spec.id() + "' differs from the path's '" + id + "'");
        }
        importer.importDocument(document(spec), "api:update-pool", caller.principal(), before -> {
            if (before.pool(id).isEmpty()) {
                throw ProblemException.notFound("pool", id);
            }
        });
        return get(id);
    }

    private static void require(PoolSpec spec) {
        if (spec == null) {
            throw ProblemException.invalid("A pool body is required");
        }
    }

    private static FleetDocument document(PoolSpec spec) {
        return new FleetDocument(null, null, List.of(spec), null, null, null);
    }
}
