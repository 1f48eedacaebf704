package io.gpupool.api;

import io.gpupool.auth.Allow;
import io.gpupool.auth.Caller;
import io.swagger.v3.oas.annotations.Parameter;
import io.gpupool.auth.Role;
import io.gpupool.domain.lease.Lease;
import io.gpupool.lease.LeaseService;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.UsageReport;
import io.gpupool.problem.ProblemException;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;

import java.util.List;

/** Leases: list, read, renew, release, and heartbeats with usage samples. */
@Controller("/api/v1/leases")
public class LeaseController {
    private final LeaseService leases;

    LeaseController(LeaseService leases) {
        this.leases = leases;
    }

    public record Renewal(Long ttlSeconds) {
    }

    @Get
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public List<Lease> list(@Nullable @QueryValue String tenant, @Nullable @QueryValue LeaseState state, @Parameter(hidden = true) Caller caller) {
        return leases.list(tenant, state, caller);
    }

    @Get("/{id}")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public Lease get(@PathVariable String id, @Parameter(hidden = true) Caller caller) {
        return leases.get(id, caller);
    }

    @Post("/{id}/renew")
    @Allow({Role.ADMIN, Role.TENANT})
    public Lease renew(@PathVariable String id, @Nullable @Body Renewal body, @Parameter(hidden = true) Caller caller) {
        if (body == null || body.ttlSeconds() == null) {
            throw ProblemException.invalid("Body required: {ttlSeconds}");
        }
        return leases.renew(id, body.ttlSeconds(), caller);
    }

    @Post("/{id}/release")
    @Allow({Role.ADMIN, Role.TENANT})
    public Lease release(@PathVariable String id, @Parameter(hidden = true) Caller caller) {
        return leases.release(id, caller);
    }

    @Post("/{id}/heartbeat")
    @Allow({Role.ADMIN, Role.TENANT})
    public Lease heartbeat(@PathVariable String id, @Nullable @Body UsageReport report, @Parameter(hidden = true) Caller caller) {
        return leases.heartbeat(id, report, caller);
    }
}
