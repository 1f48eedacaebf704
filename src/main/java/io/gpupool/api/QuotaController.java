package io.gpupool.api;

import io.gpupool.auth.Allow;
import io.gpupool.auth.Caller;
import io.swagger.v3.oas.annotations.Parameter;
import io.gpupool.auth.Role;
import io.gpupool.quota.QuotaSpec;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.quota.QuotaService;
import io.gpupool.quota.QuotaView;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Put;
import io.micronaut.http.annotation.QueryValue;

import java.util.List;

/**
 * Quotas: tenant × pool × card model. PUT creates (201) or replaces (200) by that key; one that
 * would over-commit its pool is refused (422) unless it says {@code "overcommit": true}. An org-admin
 * sets its teams' quotas within what their parents hold (422 with the arithmetic otherwise).
 */
@Controller("/api/v1/quotas")
public class QuotaController {
    private final QuotaService quotas;

    QuotaController(QuotaService quotas) {
        this.quotas = quotas;
    }

    @Get
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public List<QuotaView> list(@Nullable @QueryValue String tenant, @Nullable @QueryValue String pool, @Parameter(hidden = true) Caller caller) {
        return quotas.views(tenant, pool, caller);
    }

    @Put
    @Allow({Role.ADMIN, Role.ORG_ADMIN})
    public HttpResponse<List<QuotaView>> put(@Nullable @Body QuotaSpec spec, @Parameter(hidden = true) Caller caller) {
        boolean created = quotas.put(spec, caller);
        List<QuotaView> now = quotas.views(spec.tenant(), spec.pool(), caller);
        return HttpResponse.status(created ? HttpStatus.CREATED : HttpStatus.OK).body(now);
    }

    @Delete("/{tenant}/{pool}/{model}")
    @Allow(Role.ADMIN)
    public Quota delete(@PathVariable String tenant, @PathVariable String pool, @PathVariable String model) {
        return quotas.delete(tenant, pool, model);
    }
}
