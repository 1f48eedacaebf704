package io.gpupool.catalog;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * More of the names real tools print (nvidia-smi, GPU Feature Discovery's product label, DCGM's
 * modelName), the canonical name the pool keeps, and catalogs extended by an admin's file.
 */
class CardCatalogNamesAndExtensionsTest {
    private final CardCatalog catalog = CardCatalog.standard();

    private static CardCatalog.Family family(String name, String vendor, int memoryGib, String variant, String... aliases) {
        return new CardCatalog.Family(name, vendor, "Arch", memoryGib, variant, false, 0, List.of(aliases));
    }

    @ParameterizedTest(name = "\"{0}\" is kept as {1}")
    @CsvSource(delimiter = '|', value = {
            "NVIDIA H100 80GB HBM3                | H100-SXM-80G",
            "NVIDIA-H100-80GB-HBM3                | H100-SXM-80G",
            "NVIDIA A100-SXM4-80GB                | A100-SXM-80G",
            "NVIDIA-A100-SXM4-40GB                | A100-SXM-40G",
            "NVIDIA A100 80GB PCIe                | A100-PCIE-80G",
            "NVIDIA A100-PCIE-40GB                | A100-PCIE-40G",
            "NVIDIA H100 PCIe                     | H100-PCIE-80G",
            "NVIDIA H100 NVL                      | H100-NVL-80G",
            "Tesla T4                             | T4-PCIE-16G",
            "Tesla V100-SXM2-32GB                 | V100-SXM-32G",
            "Tesla V100-PCIE-16GB                 | V100-PCIE-16G",
            "Tesla P100-PCIE-16GB                 | P100-PCIE-16G",
            "NVIDIA GH200 480GB                   | GH200-SXM-480G",
            "NVIDIA H200                          | H200-SXM-141G",
            "NVIDIA L40S                          | L40S-PCIE-48G",
            "NVIDIA-A100-SXM4-40GB-MIG-3g.20gb    | A100-SXM-40G"})
    void aResolvedNameIsKeptAsFamilyVariantAndMemory(String name, String canonical) {
        assertThat(catalog.resolve(name).canonicalName()).isEqualTo(canonical);
    }

    @Test
    void theCanonicalNameResolvesToTheSameModelAsTheNameItCameFrom() {
        CardModel fromSmi = catalog.resolve("NVIDIA A100-SXM4-80GB");
        CardModel fromFleet = catalog.resolve(fromSmi.canonicalName());

        assertThat(fromFleet.family()).isEqualTo(fromSmi.family());
        assertThat(fromFleet.variant()).isEqualTo(fromSmi.variant());
        assertThat(fromFleet.memoryGib()).isEqualTo(fromSmi.memoryGib());
        assertThat(fromFleet.canonicalName()).isEqualTo(fromSmi.canonicalName());
    }

    @Test
    void aMemoryOfAThousandOrMoreIsReadAsMebibytes() {
        assertThat(catalog.resolve("A100 81920").memoryGib()).isEqualTo(80);
        assertThat(catalog.resolve("A100 40960MiB").memoryGib()).as("MIB is not a memory suffix").isEqualTo(80);
        assertThat(catalog.resolve("A100 40960").memoryGib()).isEqualTo(40);
        assertThat(catalog.resolve("A100 999G").memoryGib()).isEqualTo(999);
    }

    @Test
    void theFirstMemoryInTheNameWinsOverAMigPartitionsMemory() {
        assertThat(catalog.resolve("A100-SXM4-40GB-MIG-1g.5gb").memoryGib()).isEqualTo(40);
    }

    @Test
    void wordsBeforeTheFamilyNeitherSetTheVariantNorTheMemory() {
        CardModel card = catalog.resolve("PCIe 16GB Tesla V100");

        assertThat(card.family()).isEqualTo("V100");
        assertThat(card.variant()).isEqualTo("SXM");
        assertThat(card.memoryGib()).isEqualTo(32);
    }

    @Test
    void theFamilyTellsArchitectureMigAndNvlinkGeneration() {
        CardModel h100 = catalog.resolve("NVIDIA H100 80GB HBM3");
        CardModel t4 = catalog.resolve("Tesla T4");

        assertThat(h100.architecture()).isEqualTo("Hopper");
        assertThat(h100.migCapable()).isTrue();
        assertThat(h100.nvlinkGeneration()).isEqualTo(4);
        assertThat(t4.architecture()).isEqualTo("Turing");
        assertThat(t4.migCapable()).isFalse();
        assertThat(t4.nvlinkGeneration()).isZero();
    }

    @Test
    void anUnknownCardKeepsTheNameItsSourceReported() {
        CardModel card = catalog.resolve("NVIDIA GeForce RTX 4090");

        assertThat(card.known()).isFalse();
        assertThat(card.canonicalName()).isEqualTo("NVIDIA GeForce RTX 4090");
        assertThat(catalog.resolve(null).known()).isFalse();
    }

    @Test
    void anAliasNamesItsFamily() {
        CardCatalog withBoardCode = CardCatalog.standard().extendedWith(List.of(
                new CardCatalog.Family("A100", "NVIDIA", "Ampere", 40, "SXM", true, 3, List.of("PG506"))));

        CardModel card = withBoardCode.resolve("PG506 board");

        assertThat(card.family()).isEqualTo("A100");
        assertThat(card.memoryGib()).as("the replacing entry's memory").isEqualTo(40);
    }

    @Test
    void anExtensionAddsAFamilyAfterTheShippedOnes() {
        CardCatalog extended = catalog.extendedWith(List.of(family("MI300X", "AMD", 192, "OAM")));

        CardModel card = extended.resolve("AMD Instinct MI300X");

        assertThat(card.known()).isTrue();
        assertThat(card.vendor()).isEqualTo("AMD");
        assertThat(card.canonicalName()).isEqualTo("MI300X-OAM-192G");
        assertThat(extended.families()).last().extracting(CardCatalog.Family::family).isEqualTo("MI300X");
        assertThat(extended.families()).hasSize(catalog.families().size() + 1);
        assertThat(catalog.resolve("AMD Instinct MI300X").known()).as("the shipped catalog is unchanged").isFalse();
    }

    @Test
    void anExtensionWithAShippedFamilysNameReplacesItInPlace() {
        CardCatalog extended = catalog.extendedWith(List.of(family("t4", "NVIDIA", 15, "PCIe")));

        assertThat(extended.resolve("Tesla T4").memoryGib()).isEqualTo(15);
        assertThat(extended.families()).hasSize(catalog.families().size());
    }

    @Test
    void aReplacedFamilyLosesItsOldAliases() {
        CardCatalog first = catalog.extendedWith(List.of(family("X1", "ACME", 8, "PCIe", "OLDCODE")));
        CardCatalog second = first.extendedWith(List.of(family("X1", "ACME", 8, "PCIe", "NEWCODE")));

        assertThat(second.resolve("NEWCODE").family()).isEqualTo("X1");
        assertThat(second.resolve("OLDCODE").known()).isFalse();
    }

    @Test
    void aFamilyNameMustBeOneWord() {
        assertThatThrownBy(() -> new CardCatalog(List.of(family("A100-SXM", "NVIDIA", 80, "SXM"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one word");
        assertThatThrownBy(() -> new CardCatalog(List.of(family(" ", "NVIDIA", 80, "SXM"))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aFamilyNamedTwiceIsRefusedWhateverItsCase() {
        assertThatThrownBy(() -> new CardCatalog(List.of(family("H100", "NVIDIA", 80, "SXM"), family("h100", "NVIDIA", 94, "NVL"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("named twice");
    }

    @Test
    void anAliasThatAlreadyNamesAnotherFamilyIsRefused() {
        assertThatThrownBy(() -> new CardCatalog(List.of(family("H100", "NVIDIA", 80, "SXM"),
                family("H800", "NVIDIA", 80, "SXM", "H100"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already names H100");
    }

    @Test
    void anAliasMustBeOneWord() {
        assertThatThrownBy(() -> new CardCatalog(List.of(family("A100", "NVIDIA", 80, "SXM", "PG 506"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not one word");
    }
}
