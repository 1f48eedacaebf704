package io.gpupool.request;

import io.micronaut.core.annotation.Nullable;
import io.gpupool.allocator.TopologyScope;
import io.gpupool.catalog.CardCatalog;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.problem.FieldChecks;

import java.util.List;

/**
 * The body of {@code POST /api/v1/requests}. {@code gpus} counts GPUs over the whole gang;
 * {@code milliPerGpu} (1..1000, default 1000) asks for a fraction of one GPU; {@code gangSize}
 * members are placed all-or-nothing; {@code topology} is ANY, NODE, NVLINK_DOMAIN or RACK;
 * {@code requires} lists profile labels every GPU it gets must carry (training-fit, nvlink, …).
 */
public record NewRequest(String tenant, WorkloadKind kind, Integer gpus, @Nullable Integer milliPerGpu,
                         @Nullable String migProfile, @Nullable List<String> models, @Nullable Long minGpuMemoryMib,
                         @Nullable Integer gangSize, @Nullable TopologyScope topology, @Nullable Boolean topologyRequired,
                         @Nullable String pool, @Nullable String priorityClass, @Nullable Boolean preemptible,
                         @Nullable Long ttlSeconds, @Nullable List<String> requires) {

    /** Card models are kept by the catalog's canonical name, as the inventory keeps them ("T4-16G" asks for T4-PCIE-16G). */
    public NewRequest {
        models = CardCatalog.canonical(models);
    }

    static final int MAX_REQUIRED_LABELS = 16;
    private static final java.util.regex.Pattern LABEL = java.util.regex.Pattern.compile("[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?");

    public static final long MAX_TTL_SECONDS = 90L * 24 * 3600;

    /** Field checks that need no pool state; limits that depend on the fleet are checked by the service. */
    void validate() {
        FieldChecks check = new FieldChecks();
        check.text("tenant", tenant);
        check.maxLength("tenant", tenant, 128);
        check.maxLength("pool", pool, 128);
        check.maxLength("priorityClass", priorityClass, 64);
        check.maxLength("migProfile", migProfile, 32);
        check.present("kind", kind);
        int count = gpus == null ? 0 : gpus;
        int gang = gangSize == null ? 1 : gangSize;
        int milli = milliPerGpu == null ? 1000 : milliPerGpu;
        check.range("gpus", count, 1, 4096);
        check.range("milliPerGpu", milli, 1, 1000);
        check.range("gangSize", gang, 1, Math.max(1, count));
        if (count > 0 && gang > 0 && count % gang != 0) {
            check.error("gpus: " + count + " GPUs do not split evenly over a gang of " + gang);
        }
        if ((milli < 1000 || migProfile != null) && count > 1) {
            check.error("milliPerGpu/migProfile: a fraction lives on one GPU; ask for gpus: 1 (got " + count + ")");
        }
        if (migProfile != null && milli < 1000) {
            check.error("migProfile: give either a MIG profile or milliPerGpu, not both");
        }
        check.nonNegative("minGpuMemoryMib", minGpuMemoryMib);
        if (models != null) {
            for (int i = 0; i < models.size(); i++) {
                if (models.get(i) == null) {
                    check.error("models[" + i + "]: a card model name, was null");
                }
            }
        }
        if (requires != null) {
            if (requires.size() > MAX_REQUIRED_LABELS) {
                check.error("requires: at most " + MAX_REQUIRED_LABELS + " labels, got " + requires.size());
            } else {
                for (int i = 0; i < requires.size(); i++) {
                    String label = requires.get(i);
                    if (label == null || !LABEL.matcher(label).matches()) {
                        check.error("requires[" + i + "]: a profile label is 1-63 lower-case letters, digits, '.' or '-'"
                                + " (as in training-fit or nvlink)");
                    }
                }
            }
        }
        if (ttlSeconds != null && (ttlSeconds < 0 || ttlSeconds > MAX_TTL_SECONDS)) {
            check.error("ttlSeconds: must be between 0 (none) and " + MAX_TTL_SECONDS + ", was " + ttlSeconds);
        }
        check.throwIfAny("The request is invalid");
    }

    List<String> requiresOrNone() {
        return requires == null ? List.of() : requires.stream().distinct().sorted().toList();
    }

    int gangOrOne() {
        return gangSize == null ? 1 : gangSize;
    }

    int milliOrWhole() {
        return milliPerGpu == null ? 1000 : milliPerGpu;
    }
}
