package io.gpupool.pool;

import io.gpupool.auth.Caller;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;

/**
 * Creates, updates and lists pools. Checked by {@link Pools}, the same rules a fleet document's
 * pools follow; each change is recorded with who made it, as an import is.
 */
@Singleton
public class PoolService {
    private final WorkingSet workingSet;
    private final Clock clock;

    PoolService(WorkingSet workingSet, Clock clock) {
        this.workingSet = workingSet;
        this.clock = clock;
    }

    public List<Pool> list() {
        return workingSet.current().pools().values().stream().sorted(Comparator.comparing(Pool::id)).toList();
    }

    public Pool get(String id) {
        return workingSet.current().pool(id).orElseThrow(() -> ProblemException.notFound("pool", id));
    }

    public Pool create(PoolSpec spec, Caller caller) {
        require(spec);
        return save(spec, "api:create-pool", caller, before -> {
            if (before.pool(spec.id()).isPresent()) {
                throw ProblemException.conflict("Pool '" + io.gpupool.problem.FieldChecks.excerpt(spec.id()) + "' already exists");
            }
        });
    }

    public Pool update(String id, PoolSpec spec, Caller caller) {
        require(spec);
        if (!id.equals(spec.id())) {
            throw ProblemException.invalid("The body's id '" + io.gpupool.problem.FieldChecks.excerpt(spec.id()) + "' differs from the path's '"
                    + io.gpupool.problem.FieldChecks.excerpt(id) + "'");
        }
        return save(spec, "api:update-pool", caller, before -> {
            if (before.pool(id).isEmpty()) {
                throw ProblemException.notFound("pool", id);
            }
        });
    }

    private Pool save(PoolSpec spec, String source, Caller caller, Consumer<PoolSnapshot> precondition) {
        return workingSet.write((before, changes) -> {
            precondition.accept(before);
            FieldChecks check = new FieldChecks();
            check.ids("pools", java.util.Arrays.asList(spec.id()), before.pools().keySet());
            Pool pool = Pools.resolve(List.of(spec), check).get(0);
            check.throwIfAny("The pool was not saved");
            boolean created = before.pool(pool.id()).isEmpty();
            if (!pool.equals(before.pool(pool.id()).orElse(null))) {
                changes.put(pool);
            }
            changes.recordApiChange(source, "pools", spec, created, caller.principal(), clock.instant());
            return pool;
        });
    }

    private static void require(PoolSpec spec) {
        if (spec == null) {
            throw ProblemException.invalid("A pool body is required");
        }
    }
}
