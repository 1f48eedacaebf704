package io.gpupool.catalog;

/**
 * A GPU's normalised identity, resolved from the model name its source reports: vendor, family
 * (H100, A100, L40S, T4, …), variant (SXM, PCIe, NVL), memory in GiB, architecture, whether the
 * family supports MIG, and its NVLink generation (0: none). {@code known} is false when the catalog
 * has no family in the name; then only the name is known, and nothing should be inferred from it.
 */
public record CardModel(String name, boolean known, String vendor, String family, String variant, int memoryGib,
                        String architecture, boolean migCapable, int nvlinkGeneration) {

    static CardModel unknown(String name) {
        return new CardModel(name, false, null, null, null, 0, null, false, 0);
    }
}
