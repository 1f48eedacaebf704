package io.gpupool.inventory;

import io.gpupool.catalog.CardCatalog;
import io.gpupool.catalog.CardModel;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Admins extend the card-model catalog with a file named by gpupool.catalog.file: new families,
 * aliases for names a source reports without a family word, and replacements of shipped entries.
 * A broken file stops the start with the reason.
 */
class CatalogExtensionTest {
    @TempDir
    Path dir;

    @AfterEach
    void backToTheShippedCatalog() {
        CardCatalog.use(CardCatalog.standard());
    }

    private Path file(String yaml) throws IOException {
        Path file = dir.resolve("catalog.yaml");
        Files.writeString(file, yaml);
        return file;
    }

    /** Only the loader: the catalog is installed before anything else of the service starts. */
    private static void load(Path catalog) {
        new CatalogLoader(catalog.toString());
    }

    @Test
    void aFamilyAndAnAliasFromTheAdminsFileResolveAfterStartup() throws IOException {
        Path catalog = file("""
                families:
                  - {family: MI300X, vendor: AMD, architecture: CDNA3, memoryGib: 192, variant: OAM, mig: false, nvlinkGeneration: 0}
                  - {family: V100, vendor: NVIDIA, architecture: Volta, memoryGib: 32, variant: SXM, mig: false,
                     nvlinkGeneration: 2, aliases: [PG503]}
                """);
        assertThat(CardCatalog.standard().resolve("AMD Instinct MI300X").known()).as("not shipped").isFalse();

        load(catalog);
        CardModel mi300 = CardCatalog.active().resolve("AMD Instinct MI300X");
        CardModel board = CardCatalog.active().resolve("Tesla PG503-216");

        assertThat(mi300.known()).isTrue();
        assertThat(mi300.family()).isEqualTo("MI300X");
        assertThat(mi300.memoryGib()).isEqualTo(192);
        assertThat(board.family()).isEqualTo("V100");
        assertThat(CardCatalog.active().resolve("H100-SXM-80G").family()).as("shipped families stay").isEqualTo("H100");
    }

    @Test
    void theServiceInstallsTheCatalogItsConfigurationNames() throws IOException {
        Path catalog = file("families:\n  - {family: MI300X, vendor: AMD, memoryGib: 192}\n");

        Map<String, Object> properties = io.gpupool.testing.TestDatabase.restartable(dir.resolve("db"), true);
        properties.put("gpupool.catalog.file", catalog.toString());
        try (ApplicationContext ignored = ApplicationContext.run(properties, "test")) {
            assertThat(CardCatalog.active().resolve("MI300X").known()).isTrue();
        }
    }

    @Test
    void anAliasThatAlreadyNamesAFamilyIsRefused() {
        var clash = new CardCatalog.Family("X1", "ACME", "One", 16, "PCIe", false, 0, java.util.List.of("T4"));

        assertThatThrownBy(() -> CardCatalog.standard().extendedWith(java.util.List.of(clash)))
                .hasMessageContaining("alias T4 of X1 already names T4");
    }

    @Test
    void aBrokenCatalogFileIsRefusedWithTheReason() throws IOException {
        Path catalog = file("families:\n  - {family: MI300X, vendr: AMD}\n");

        assertThatThrownBy(() -> load(catalog)).hasMessageContaining("vendr");
        assertThatThrownBy(() -> load(dir.resolve("missing.yaml"))).hasMessageContaining("is not a file");
        assertThat(CardCatalog.active()).as("the shipped catalog stays in use").isSameAs(CardCatalog.standard());
    }
}
