package io.gpupool.api;

import io.gpupool.auth.Allow;
import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.clustersync.ClusterImporter;
import io.gpupool.clustersync.SyncOutcome;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.Parameter;

/**
 * A whole cluster from the system that already knows it: a Kubernetes NodeList ({@code format=k8s},
 * JSON or YAML) or a Slurm node dump ({@code format=slurm}, {@code scontrol show node -o}),
 * reconciled all or nothing; {@code dryRun=true} only reports (docs/inventory-sources.md).
 */
@Controller("/api/v1/clusters")
public class ClusterImportController {
    private final ClusterImporter importer;

    ClusterImportController(ClusterImporter importer) {
        this.importer = importer;
    }

    @Post("/{id}/import")
    @Consumes({MediaType.APPLICATION_JSON, "application/yaml", "application/x-yaml", "text/yaml", MediaType.TEXT_PLAIN,
            MediaType.APPLICATION_OCTET_STREAM})
    @Allow(Role.ADMIN)
    public SyncOutcome importCluster(@PathVariable String id, @Nullable @QueryValue String format,
                                     @Nullable @QueryValue String site,
                                     @Nullable @QueryValue @Schema(type = "boolean", defaultValue = "false") String dryRun,
                                     @Nullable @Body String document, @Parameter(hidden = true) Caller caller) {
        return importer.importText(id, format, site, document, Boolean.TRUE.equals(QueryFlag.parse("dryRun", dryRun)), caller.principal());
    }
}
