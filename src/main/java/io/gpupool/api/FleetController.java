package io.gpupool.api;

import io.gpupool.auth.Allow;
import io.gpupool.auth.Caller;
import io.swagger.v3.oas.annotations.Parameter;
import io.gpupool.auth.Role;
import io.gpupool.fleet.FleetImporter;
import io.gpupool.fleet.ImportSummary;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;

/** Bulk inventory import: an idempotent, all-or-nothing upsert of a fleet document (JSON or YAML). */
@Controller("/api/v1/fleet")
public class FleetController {
    private final FleetImporter importer;

    FleetController(FleetImporter importer) {
        this.importer = importer;
    }

    @Post
    @Consumes({MediaType.APPLICATION_JSON, "application/yaml", "application/x-yaml", "text/yaml", MediaType.TEXT_PLAIN})
    @Allow(Role.ADMIN)
    public ImportSummary importFleet(@Nullable @Body String document, HttpRequest<?> request, @Parameter(hidden = true) Caller caller) {
        boolean yaml = request.getContentType().map(t -> t.getSubtype().contains("yaml")).orElse(false);
        return importer.importText(document, yaml, "api", caller.principal());
    }
}
