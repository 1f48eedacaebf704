package io.gpupool.catalog;

/**
 * A GPU's normalised identity, resolved from the model name its source reports: vendor, family
 * (H100, A100, L40S, T4, …), variant (SXM, PCIe, NVL), memory in GiB, architecture, whether the
 * family supports MIG, and its NVLink generation (0: none). {@code known} is false when the catalog
 * has no family in the name; then only the name is known, and nothing should be inferred from it.
 */
public record CardModel(String name, boolean known, String vendor, String family, String variant, int memoryGib,
                        String architecture, boolean migCapable, int nvlinkGeneration) {

    /**
     * The name the pool keeps for cards of this model, the form fleet documents use: family, variant
     * and memory ({@code H100-SXM-80G} for "NVIDIA H100 80GB HBM3", {@code T4-PCIE-16G} for "Tesla
     * T4"). A card the catalog cannot name keeps the name its source reported.
     */
    public String canonicalName() {
        if (!known) {
            return name;
        }
        return family + (variant == null ? "" : "-" + variant.toUpperCase(java.util.Locale.ROOT)) + "-" + memoryGib + "G";
    }

    static CardModel unknown(String name) {
        return new CardModel(name, false, null, null, null, 0, null, false, 0);
    }
}
