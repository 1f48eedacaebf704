package io.gpupool.pool;

import io.gpupool.domain.tenancy.Pool;
import io.gpupool.problem.FieldChecks;

import java.util.ArrayList;
import java.util.List;

/** Pools as the model takes them: every problem goes to {@code check}, so a caller can report them all at once. */
public final class Pools {
    /** A description is free text; this bound keeps a pool row and its answers small. */
    static final int MAX_DESCRIPTION = 4096;

    private Pools() {
    }

    /** The records of {@code specs}, checked field by field; ids are checked by the caller, which knows their scope. */
    public static List<Pool> resolve(List<PoolSpec> specs, FieldChecks check) {
        List<Pool> pools = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            PoolSpec p = specs.get(i);
            check.present("pools[" + i + "].tier", p.tier());
            check.maxLength("pools[" + i + "].name", p.name(), 256);
            check.maxLength("pools[" + i + "].placementStrategy", p.placementStrategy(), 64);
            check.maxLength("pools[" + i + "].description", p.description(), MAX_DESCRIPTION);
            pools.add(new Pool(p.id(), orDefault(p.name(), p.id()), p.tier(), orDefault(p.placementStrategy(), "default"),
                    p.sharingAllowed() == null || p.sharingAllowed(), p.description()));
        }
        return pools;
    }

    static String orDefault(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value;
    }
}
