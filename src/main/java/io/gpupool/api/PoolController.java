package io.gpupool.api;

import io.gpupool.auth.Allow;
import io.gpupool.auth.Caller;
import io.swagger.v3.oas.annotations.Parameter;
import io.gpupool.auth.Role;
import io.gpupool.pool.PoolSpec;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.pool.PoolService;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Put;

import java.net.URI;
import java.util.List;

/** Pools and their tiers; every role reads them, admins change them. */
@Controller("/api/v1/pools")
public class PoolController {
    private final PoolService pools;

    PoolController(PoolService pools) {
        this.pools = pools;
    }

    @Get
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public List<Pool> list() {
        return pools.list();
    }

    @Get("/{id}")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public Pool get(@PathVariable String id) {
        return pools.get(id);
    }

    @Post
    @Allow(Role.ADMIN)
    public HttpResponse<Pool> create(@Nullable @Body PoolSpec spec, @Parameter(hidden = true) Caller caller) {
        Pool created = pools.create(spec, caller);
        return HttpResponse.created(created, URI.create("/api/v1/pools/" + created.id()));
    }

    @Put("/{id}")
    @Allow(Role.ADMIN)
    public Pool update(@PathVariable String id, @Nullable @Body PoolSpec spec, @Parameter(hidden = true) Caller caller) {
        return pools.update(id, spec, caller);
    }
}
