package io.gpupool.pool;

import io.gpupool.domain.tenancy.Pool;
import io.gpupool.problem.FieldChecks;

import java.util.ArrayList;
import java.util.List;

/** Pools as the model takes them: every problem goes to {@code check}, so a caller can report them all at once. */
public final class Pools {
    private Pools() {
    }

    /** The records of {@code specs}, checked field by field; ids are checked by the caller, which knows their scope. */
    public static List<Pool> resolve(List<PoolSpec> specs, FieldChecks check) {
        List<Pool> pools = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            PoolSpec p = specs.get(i);
            check.present("pools[" + i + "].tier", p.tier());
            pools.add(new Pool(p.id(), orDefault(p.name(), p.id()), p.tier(), orDefault(p.placementStrategy(), "default"),
                    p.sharingAllowed() == null || p.sharingAllowed(), p.description()));
        }
        return pools;
    }

    static String orDefault(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value;
    }
}
