package io.gpupool.prometheus;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Which labels of a dcgm-exporter series name its GPU, in order of preference: the first label
 * present wins. The defaults read the exporter's labels as it writes them ({@code UUID}, {@code gpu},
 * {@code Hostname}, newer exporters' {@code hostname}, MIG's {@code GPU_I_PROFILE}/{@code GPU_I_ID})
 * and, before them, the {@code exported_*} names Prometheus gives a scraped label that collides
 * with a target label (there the unprefixed one is the target's, not the GPU's).
 */
public record SeriesLabels(List<String> uuid, List<String> gpu, List<String> host, List<String> migProfile,
                           List<String> migInstance) {
    public SeriesLabels {
        uuid = List.copyOf(uuid);
        gpu = List.copyOf(gpu);
        host = List.copyOf(host);
        migProfile = List.copyOf(migProfile);
        migInstance = List.copyOf(migInstance);
    }

    public static SeriesLabels standard() {
        return of("exported_UUID,UUID", "exported_gpu,gpu", "exported_Hostname,exported_hostname,Hostname,hostname",
                "exported_GPU_I_PROFILE,GPU_I_PROFILE", "exported_GPU_I_ID,GPU_I_ID");
    }

    /** From configuration: each a comma-separated list of label names, most preferred first. */
    public static SeriesLabels of(String uuid, String gpu, String host, String migProfile, String migInstance) {
        return new SeriesLabels(names(uuid), names(gpu), names(host), names(migProfile), names(migInstance));
    }

    static String first(Map<String, String> labels, List<String> names) {
        for (String n : names) {
            String v = labels.get(n);
            if (v != null && !v.isEmpty()) {
                return v;
            }
        }
        return null;
    }

    private static List<String> names(String csv) {
        List<String> out = new ArrayList<>();
        for (String s : csv.split(",")) {
            if (!s.isBlank()) {
                out.add(s.trim());
            }
        }
        return out;
    }
}
