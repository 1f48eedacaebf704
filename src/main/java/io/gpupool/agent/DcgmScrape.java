package io.gpupool.agent;

import io.gpupool.agent.NodeReport.Activity;
import io.gpupool.agent.NodeReport.Capture;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.Health;
import io.gpupool.agent.NodeReport.MigInstance;
import io.gpupool.agent.PrometheusText.Sample;
import io.gpupool.catalog.CardCatalog;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a dcgm-exporter scrape. Series are grouped by the {@code UUID} label (else {@code gpu});
 * a series with {@code GPU_I_ID} belongs to that MIG instance, whose profile is {@code GPU_I_PROFILE}.
 * The card's name is the {@code modelName} label when the exporter sets it (older ones, and NVIDIA's
 * documented excerpt, do not: then the model is left unknown and the node's nvidia-smi names it).
 * Memory is {@code FB_FREE + FB_USED} (+ {@code FB_RESERVED}), in MiB as DCGM reports it.
 */
public final class DcgmScrape {
    public static final String SOURCE = "dcgm";

    private DcgmScrape() {
    }

    private static final class Series {
        final Map<String, Double> whole = new HashMap<>();
        final Map<Integer, Map<String, Double>> instances = new TreeMap<>();
        final Map<Integer, String> profiles = new HashMap<>();
        String uuid;
        Integer index;
        String model;
    }

    public static Capture parse(String text, CardCatalog catalog) {
        Map<String, Series> byGpu = new LinkedHashMap<>();
        String driver = null;
        for (Sample s : PrometheusText.parse(text)) {
            if (!s.name().startsWith("DCGM_FI_")) {
                continue;
            }
            String key = s.label("UUID") != null ? s.label("UUID") : s.label("gpu");
            if (key == null) {
                throw new ReportFormatException("dcgm-exporter scrape line " + s.line() + ": " + s.name()
                        + " has neither a UUID nor a gpu label");
            }
            Series series = byGpu.computeIfAbsent(key, k -> new Series());
            series.uuid = s.label("UUID");
            if (s.label("gpu") != null) {
                try {
                    series.index = Integer.parseInt(s.label("gpu"));
                } catch (NumberFormatException e) {
                    throw new ReportFormatException("dcgm-exporter scrape line " + s.line() + ": label gpu='"
                            + Readings.clip(s.label("gpu")) + "' is not a GPU index");
                }
            }
            if (s.label("modelName") != null) {
                series.model = s.label("modelName");
            }
            if (s.label("DCGM_FI_DRIVER_VERSION") != null) {
                driver = s.label("DCGM_FI_DRIVER_VERSION");
            }
            String instance = s.label("GPU_I_ID");
            if (instance == null) {
                series.whole.put(s.name(), s.value());
            } else {
                int id;
                try {
                    id = Integer.parseInt(instance);
                } catch (NumberFormatException e) {
                    throw new ReportFormatException("dcgm-exporter scrape line " + s.line() + ": label GPU_I_ID='"
                            + Readings.clip(instance) + "' is not a number");
                }
                series.instances.computeIfAbsent(id, k -> new HashMap<>()).put(s.name(), s.value());
                if (s.label("GPU_I_PROFILE") != null) {
                    series.profiles.put(id, s.label("GPU_I_PROFILE"));
                }
            }
        }
        List<Gpu> gpus = new ArrayList<>();
        int position = 0;
        for (Series s : byGpu.values()) {
            List<MigInstance> instances = new ArrayList<>();
            s.instances.forEach((id, values) -> instances.add(new MigInstance(id, s.profiles.get(id),
                    Readings.profileMemoryMib(s.profiles.get(id)), null, activity(values))));
            Double free = s.whole.get("DCGM_FI_DEV_FB_FREE");
            Double used = s.whole.get("DCGM_FI_DEV_FB_USED");
            Double reserved = s.whole.get("DCGM_FI_DEV_FB_RESERVED");
            Long memory = free == null || used == null ? null
                    : Math.round(free + used + (reserved == null ? 0 : reserved));
            Health health = new Health(whole(s.whole, "DCGM_FI_DEV_XID_ERRORS"),
                    whole(s.whole, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL"), whole(s.whole, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"),
                    Readings.sum(whole(s.whole, "DCGM_FI_DEV_RETIRED_SBE"), whole(s.whole, "DCGM_FI_DEV_RETIRED_DBE")),
                    Readings.sum(whole(s.whole, "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS"),
                            whole(s.whole, "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS")),
                    List.of(), s.whole.get("DCGM_FI_DEV_GPU_TEMP"), s.whole.get("DCGM_FI_DEV_POWER_USAGE"));
            int index = s.index != null ? s.index : position;
            position++;
            gpus.add(new Gpu(index, s.uuid, null, s.model, s.model == null ? null : catalog.resolve(s.model).canonicalName(),
                    memory, instances.isEmpty() ? null : true, instances, List.of(), health, activity(s.whole)));
        }
        return new Capture(SOURCE, driver, null, gpus);
    }

    private static Activity activity(Map<String, Double> values) {
        Double gpuUtil = values.get("DCGM_FI_DEV_GPU_UTIL");
        Double fb = values.get("DCGM_FI_DEV_FB_USED");
        return Activity.of(fraction(values.get("DCGM_FI_PROF_GR_ENGINE_ACTIVE")), fraction(values.get("DCGM_FI_PROF_SM_ACTIVE")),
                gpuUtil == null ? null : fraction(gpuUtil / 100.0), fb == null ? null : Math.round(fb));
    }

    /** A ratio as reported, bounded to 0..1 (DCGM's profiling ratios can overshoot 1 by rounding). */
    private static Double fraction(Double v) {
        return v == null || v.isNaN() ? null : Math.max(0.0, Math.min(1.0, v));
    }

    private static Long whole(Map<String, Double> values, String name) {
        Double v = values.get(name);
        return v == null || v.isNaN() ? null : Math.round(v);
    }

    /**
     * The capture whose inventory came from nvidia-smi with DCGM's activity laid over it, matched
     * by GPU UUID (MIG instances by their GPU instance id): DCGM measures activity per MIG instance,
     * nvidia-smi names the cards.
     */
    public static Capture overlay(Capture inventory, Capture dcgm) {
        Map<String, Gpu> measured = new HashMap<>();
        dcgm.gpus().forEach(g -> measured.put(g.uuid(), g));
        List<Gpu> gpus = new ArrayList<>();
        for (Gpu g : inventory.gpus()) {
            Gpu m = measured.get(g.uuid());
            if (m == null) {
                gpus.add(g);
                continue;
            }
            List<MigInstance> instances = new ArrayList<>();
            for (MigInstance mi : g.migInstances()) {
                MigInstance match = m.migInstances().stream()
                        .filter(x -> x.gpuInstanceId() != null && x.gpuInstanceId().equals(mi.gpuInstanceId()))
                        .findFirst().orElse(null);
                instances.add(match == null || match.activity() == null ? mi : mi.withActivity(merge(mi.activity(), match.activity())));
            }
            Health h = g.health();
            if (h != null && m.health() != null && m.health().xidErrors() != null) {
                h = new Health(m.health().xidErrors(), h.eccCorrected(), h.eccUncorrected(), h.retiredPages(),
                        h.remappedRows(), h.throttleReasons(), h.temperatureC(), h.powerW());
            }
            gpus.add(g.withActivity(merge(g.activity(), m.activity()), instances).withHealth(h));
        }
        return new Capture(inventory.source() + "+" + SOURCE, inventory.driverVersion(), inventory.cudaVersion(), gpus);
    }

    private static Activity merge(Activity smi, Activity dcgm) {
        if (dcgm == null) {
            return smi;
        }
        return Activity.of(dcgm.graphicsActive(), dcgm.smActive(),
                dcgm.gpuUtil() != null ? dcgm.gpuUtil() : smi == null ? null : smi.gpuUtil(),
                dcgm.framebufferUsedMib() != null ? dcgm.framebufferUsedMib() : smi == null ? null : smi.framebufferUsedMib());
    }
}
