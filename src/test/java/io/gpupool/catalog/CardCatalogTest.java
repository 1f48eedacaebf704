package io.gpupool.catalog;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The names real sources report resolve to one card model. The product names are those of the
 * captures in shared/inventory-samples (nvidia-smi XML and CSV, GPU Feature Discovery labels; see
 * their PROVENANCE.md), and the fleet-file names are the shipped example fleet's.
 */
class CardCatalogTest {
    private final CardCatalog catalog = CardCatalog.standard();

    @ParameterizedTest(name = "\"{0}\" is {1} {2} with {3} GiB")
    @CsvSource(delimiter = '|', value = {
            "NVIDIA H100 80GB HBM3              | H100  | SXM  | 80",   // nvidia-smi
            "NVIDIA-H100-80GB-HBM3              | H100  | SXM  | 80",   // GPU Feature Discovery
            "H100-SXM-80G                       | H100  | SXM  | 80",   // fleet file
            "NVIDIA H100 PCIe                   | H100  | PCIe | 80",
            "NVIDIA A100-SXM4-80GB              | A100  | SXM  | 80",   // nvidia-smi XML
            "A100-SXM4-40GB                     | A100  | SXM  | 40",   // GFD
            "A100-SXM4-40GB-MIG-1g.5gb-SHARED   | A100  | SXM  | 40",   // GFD, MIG mixed strategy
            "A100-PCIE-40G                      | A100  | PCIe | 40",   // fleet file
            "A100-SXM-80G                       | A100  | SXM  | 80",
            "Tesla T4                           | T4    | PCIe | 16",   // nvidia-smi: the name says no memory
            "TESLA-T4                           | T4    | PCIe | 16",   // GFD
            "T4-16G                             | T4    | PCIe | 16",
            "L40S-48G                           | L40S  | PCIe | 48",   // not L40, not L4
            "NVIDIA L40                         | L40   | PCIe | 48",
            "NVIDIA L4                          | L4    | PCIe | 24",
            "NVIDIA RTX A5000                   | A5000 | PCIe | 24",
            "Quadro P2000                       | P2000 | PCIe | 5"})
    void aNameFromAnySourceResolvesToItsFamilyVariantAndMemory(String name, String family, String variant, int memoryGib) {
        CardModel card = catalog.resolve(name);

        assertThat(card.known()).isTrue();
        assertThat(card.family()).isEqualTo(family);
        assertThat(card.variant()).isEqualTo(variant);
        assertThat(card.memoryGib()).isEqualTo(memoryGib);
        assertThat(card.vendor()).isEqualTo("NVIDIA");
    }

    @ParameterizedTest(name = "\"{0}\" is not a known card")
    @CsvSource({"Graphics Device", "H1000", "Mystery-9000", "''"})
    void aNameWithNoFamilyInItIsUnknownAndSaysNothingMore(String name) {
        CardModel card = catalog.resolve(name);

        assertThat(card.known()).isFalse();
        assertThat(card.family()).isNull();
        assertThat(card.variant()).isNull();
        assertThat(card.name()).isEqualTo(name);
    }
}
