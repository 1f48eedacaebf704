package io.gpupool.inventory;

import io.gpupool.catalog.CardCatalog;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Installs the card-model catalog at startup: the shipped one, extended by the admins' file when
 * {@code gpupool.catalog.file} (GPUPOOL_CATALOG_FILE) names one. A file that cannot be read or
 * does not hold a valid catalog stops the start with the reason: silently resolving cards with a
 * catalog other than the one the admins wrote would tier them wrongly.
 */
@Context
public class CatalogLoader {
    private static final Logger LOG = LoggerFactory.getLogger(CatalogLoader.class);

    CatalogLoader(@Nullable @Value("${gpupool.catalog.file:}") String file) {
        if (file == null || file.isBlank()) {
            CardCatalog.use(CardCatalog.standard());
            return;
        }
        Path path = Path.of(file);
        if (!Files.isRegularFile(path)) {
            throw new IllegalStateException("gpupool.catalog.file: " + path.toAbsolutePath() + " is not a file");
        }
        CardCatalog catalog = CardCatalog.standard().extendedWith(CardCatalog.read(path));
        CardCatalog.use(catalog);
        LOG.info("Card-model catalog: {} families, extended by {}", catalog.families().size(), path);
    }
}
