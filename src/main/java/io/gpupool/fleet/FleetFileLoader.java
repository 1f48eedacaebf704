package io.gpupool.fleet;

import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Value;
import jakarta.annotation.PostConstruct;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Applies {@code gpupool.fleet-file} at startup, but only when its content changed since it was last
 * applied: restarting with the same file must not overwrite what happened since (for example a
 * device marked UNHEALTHY by a heartbeat). A missing or invalid file stops the start with its errors.
 */
@Context
public class FleetFileLoader {
    private static final Logger LOG = LoggerFactory.getLogger(FleetFileLoader.class);

    private final FleetImporter importer;
    private final String file;

    FleetFileLoader(FleetImporter importer, @Value("${gpupool.fleet-file:}") String file) {
        this.importer = importer;
        this.file = file;
    }

    @PostConstruct
    void applyIfChanged() throws IOException {
        if (file == null || file.isBlank()) {
            return;
        }
        Path path = Path.of(file);
        if (!Files.isRegularFile(path)) {
            throw new IllegalStateException("gpupool.fleet-file '" + path.toAbsolutePath() + "' does not exist");
        }
        String text = Files.readString(path);
        String source = "file:" + path.toAbsolutePath().normalize();
        if (importer.alreadyApplied(text, source)) {
            LOG.info("Fleet file {} unchanged since it was last applied; skipped", path);
            return;
        }
        boolean yaml = file.endsWith(".yaml") || file.endsWith(".yml") || FleetParser.looksLikeYaml(text);
        ImportSummary summary = importer.importText(text, yaml, source, "fleet-file");
        LOG.info("Fleet file {} applied: {}", path, summary.changes());
    }
}
