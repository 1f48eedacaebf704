package io.gpupool.agent;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What a node agent reports: the node (its id, and cluster, site, rack and labels from the agent's
 * config file), each GPU with its MIG instances, health readings and activity, and the report's
 * place in the agent's sequence. The same record is printed by {@code gpupool agent --once --print}
 * and posted to {@code POST /api/v1/agent/reports}. A reading a source does not give is null, never 0:
 * "not measured" must not read as "idle" or "no errors".
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeReport(String node, String cluster, String site, String rack, Map<String, String> labels,
                         Long sequence, Instant at, Integer intervalSeconds, String source, String driverVersion,
                         String cudaVersion, List<Gpu> gpus) {
    public NodeReport {
        labels = copy(labels);
        gpus = copy(gpus);
    }

    /*
     * Unmodifiable copies that keep a null element or value: a body with "gpus": [null] must reach
     * the report's checks, which refuse it with its path (gpus[3]: is null), instead of failing in
     * this constructor with a bare NullPointerException the caller cannot act on.
     */
    static <T> List<T> copy(List<T> list) {
        return list == null ? List.of() : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(list));
    }

    static <K, V> Map<K, V> copy(Map<K, V> map) {
        return map == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(map));
    }

    /**
     * One GPU. {@code productName} is what the source printed; {@code model} is the card-model
     * catalog's name for it ({@code H100-SXM-80G}), or the product name when the catalog has no
     * family in it. {@code memoryMib} is the framebuffer the driver reports.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Gpu(Integer index, String uuid, String pciBusId, String productName, String model, Long memoryMib,
                      Boolean migEnabled, List<MigInstance> migInstances, List<String> nvlinkPeers, Health health,
                      Activity activity) {
        public Gpu {
            migInstances = copy(migInstances);
            nvlinkPeers = copy(nvlinkPeers);
        }

        Gpu withActivity(Activity a, List<MigInstance> instances) {
            return new Gpu(index, uuid, pciBusId, productName, model, memoryMib, migEnabled, instances, nvlinkPeers,
                    health, a);
        }

        Gpu withHealth(Health h) {
            return new Gpu(index, uuid, pciBusId, productName, model, memoryMib, migEnabled, migInstances,
                    nvlinkPeers, h, activity);
        }
    }

    /** A MIG GPU instance: its id on the card, profile ({@code 3g.40gb}), memory, UUID where shown. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record MigInstance(Integer gpuInstanceId, String profile, Long memoryMib, String uuid, Activity activity) {
        MigInstance withActivity(Activity a) {
            return new MigInstance(gpuInstanceId, profile, memoryMib, uuid, a);
        }
    }

    /**
     * Health readings. ECC counts are the volatile ones (since the driver loaded); {@code xidErrors}
     * is the last XID DCGM saw (0: none); {@code throttleReasons} the active clock-event reasons.
     * {@code state} is a health a source states outright rather than measures (an orchestrator's
     * node not Ready: UNHEALTHY; cordoned, tainted or drained: DRAINING), null when it states none.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Health(Long xidErrors, Long eccCorrected, Long eccUncorrected, Long retiredPages,
                         Long remappedRows, List<String> throttleReasons, Double temperatureC, Double powerW,
                         String state) {
        public Health(Long xidErrors, Long eccCorrected, Long eccUncorrected, Long retiredPages, Long remappedRows,
                      List<String> throttleReasons, Double temperatureC, Double powerW) {
            this(xidErrors, eccCorrected, eccUncorrected, retiredPages, remappedRows, throttleReasons, temperatureC,
                    powerW, null);
        }

        /** Only a stated health: what an orchestrator says of a node, nothing measured. */
        public static Health stated(String state) {
            return state == null ? null : new Health(null, null, null, null, null, null, null, null, state);
        }
    }

    /**
     * One activity sample. {@code value} (0..1) is what policy treats as "active": {@code metric}
     * says which reading it is — {@code GR_ENGINE_ACTIVE} (DCGM: share of time the graphics engine
     * had work), else {@code SM_ACTIVE}, else {@code GPU_UTIL} (nvidia-smi's utilization.gpu, a
     * duty cycle that overstates use). The other readings are kept as reported.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Activity(String metric, Double value, Double graphicsActive, Double smActive, Double gpuUtil,
                           Long framebufferUsedMib) {
        public static final String GR_ENGINE_ACTIVE = "GR_ENGINE_ACTIVE";
        public static final String SM_ACTIVE = "SM_ACTIVE";
        public static final String GPU_UTIL = "GPU_UTIL";

        /** The sample from the readings a source gave, choosing the metric by the preference above. */
        public static Activity of(Double graphicsActive, Double smActive, Double gpuUtil, Long framebufferUsedMib) {
            if (graphicsActive == null && smActive == null && gpuUtil == null && framebufferUsedMib == null) {
                return null;
            }
            String metric = graphicsActive != null ? GR_ENGINE_ACTIVE : smActive != null ? SM_ACTIVE
                    : gpuUtil != null ? GPU_UTIL : null;
            Double value = graphicsActive != null ? graphicsActive : smActive != null ? smActive : gpuUtil;
            return new Activity(metric, value, graphicsActive, smActive, gpuUtil, framebufferUsedMib);
        }
    }

    /** What one source read from one machine: driver, CUDA version and the GPUs. */
    public record Capture(String source, String driverVersion, String cudaVersion, List<Gpu> gpus) {
        public Capture {
            gpus = copy(gpus);
        }
    }
}
