package io.gpupool.api;

import io.gpupool.auth.Allow;
import io.gpupool.auth.Caller;
import io.swagger.v3.oas.annotations.Parameter;
import io.gpupool.auth.Role;
import io.gpupool.tenant.TenantSpec;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.tenant.TenantService;
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

/** Tenants (org → team tree). Tenant tokens see their own subtree only. */
@Controller("/api/v1/tenants")
public class TenantController {
    private final TenantService tenants;

    TenantController(TenantService tenants) {
        this.tenants = tenants;
    }

    @Get
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public List<Tenant> list(@Parameter(hidden = true) Caller caller) {
        return tenants.visibleTo(caller);
    }

    @Get("/{id}")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public Tenant get(@PathVariable String id, @Parameter(hidden = true) Caller caller) {
        return tenants.get(id, caller);
    }

    @Post
    @Allow(Role.ADMIN)
    public HttpResponse<Tenant> create(@Nullable @Body TenantSpec spec, @Parameter(hidden = true) Caller caller) {
        Tenant created = tenants.create(spec, caller);
        return HttpResponse.created(created, URI.create("/api/v1/tenants/" + created.id()));
    }

    @Put("/{id}")
    @Allow(Role.ADMIN)
    public Tenant update(@PathVariable String id, @Nullable @Body TenantSpec spec, @Parameter(hidden = true) Caller caller) {
        return tenants.update(id, spec, caller);
    }
}
