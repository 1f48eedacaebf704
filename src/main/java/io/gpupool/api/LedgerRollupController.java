package io.gpupool.api;

import io.gpupool.accounting.LedgerRollups;
import io.gpupool.auth.Allow;
import io.gpupool.auth.Role;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;

/**
 * The ledger's rollups (docs/reports.md, "Rollups"): a check of a range of days against the ledger,
 * and a rebuild of that range from it. Both take whole UTC days {@code from} and {@code to}.
 */
@Controller("/api/v1/reports/ledger/rollup")
public class LedgerRollupController {
    private final LedgerRollups rollups;

    LedgerRollupController(LedgerRollups rollups) {
        this.rollups = rollups;
    }

    /** The stored rollup rows of the days against the same rows summed from the ledger ({@code intact}: equal). */
    @Get("/check")
    @Allow({Role.ADMIN, Role.VIEWER})
    public LedgerRollups.Check check(@Nullable @QueryValue String from, @Nullable @QueryValue String to) {
        return rollups.check(from, to);
    }

    /** Deletes the rollup rows of the days and sums them again from the ledger, in one transaction. */
    @Post("/rebuild")
    @Allow(Role.ADMIN)
    public LedgerRollups.Rebuild rebuild(@Nullable @QueryValue String from, @Nullable @QueryValue String to) {
        return rollups.rebuild(from, to);
    }
}
