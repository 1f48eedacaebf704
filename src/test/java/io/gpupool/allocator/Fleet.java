package io.gpupool.allocator;

/**
 * Test fixture: a fluent fleet. {@code Fleet.of().node("a").gpus(8, "A100").and().node("b")…build()}
 * with generous CPU and memory by default, so tests state only what they are about.
 */
public final class Fleet {
    public static final long PLENTY_CPU = 128_000;
    public static final long PLENTY_MEMORY = 1_048_576;

    private final CapacityViewBuilder builder = CapacityView.builder().nodeDefaults(PLENTY_CPU, PLENTY_MEMORY);

    private Fleet() {
    }

    public static Fleet of() {
        return new Fleet();
    }

    public NodeSpec node(String id) {
        return builder.node(id);
    }

    /** {@code count} identical nodes named {@code prefix0..}, each with {@code gpus} GPUs of {@code model}. */
    public Fleet nodes(String prefix, int count, int gpus, String model) {
        for (int i = 0; i < count; i++) {
            node(prefix + i).gpus(gpus, model);
        }
        return this;
    }

    public CapacityView build() {
        return builder.build();
    }

    public static PlacementRequestBuilder request() {
        return PlacementRequest.builder();
    }
}
