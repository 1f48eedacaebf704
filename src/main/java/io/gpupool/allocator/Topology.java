package io.gpupool.allocator;

/**
 * A topology wish. Required: a plan that breaks it is never returned. Preferred: the allocator
 * tries it first and falls back to {@link TopologyScope#ANY} (the plan then says so).
 */
public record Topology(TopologyScope scope, boolean required) {
    public static final Topology NONE = new Topology(TopologyScope.ANY, false);

    public Topology {
        if (scope == null) {
            throw new IllegalArgumentException("scope is required");
        }
    }

    public static Topology required(TopologyScope scope) {
        return new Topology(scope, true);
    }

    public static Topology preferred(TopologyScope scope) {
        return new Topology(scope, false);
    }

    public boolean constrains() {
        return scope != TopologyScope.ANY;
    }
}
