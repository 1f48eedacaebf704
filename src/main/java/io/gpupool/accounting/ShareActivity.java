package io.gpupool.accounting;

import io.gpupool.telemetry.SampleRollup;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What device telemetry says of one lease share, slot by slot: a card's (or MIG instance's) samples
 * summarised per 5-minute slot ({@link SampleRollup}: raw samples are summarised the way the
 * retention job rolls them up, so a slot reads the same either way) and reduced to one activity
 * figure per slot for the share:
 * <ul>
 *   <li>the metric: graphics-engine activity where a slot has it, else SM activity, else
 *       nvidia-smi's GPU utilisation (a duty cycle that overstates use), as idle reclamation prefers them;</li>
 *   <li>a whole-card or fractional share reads the card's own series; a MIG share reads the instances
 *       of its profile on its card (a lease does not record which instance of the profile it got):
 *       its activity is their mean, and it is idle only while all of them are (their maximum under
 *       the threshold), as idle reclamation judges it;</li>
 *   <li>several rows of one slot and metric (samples that came after their slot was rolled up) are
 *       weighted by their sample counts.</li>
 * </ul>
 * Pure: the report feeds it rows read by {@code TelemetryHistory.slots}.
 */
final class ShareActivity {
    static final long SLOT_MS = 300_000L;

    /** One slot: mean activity (NaN: no activity measured), its maximum, the metric, framebuffer used (null: none). */
    record Slot(long startMs, double activity, double max, String metric, Double framebufferMib) {
        boolean measured() {
            return !Double.isNaN(activity);
        }
    }

    private ShareActivity() {
    }

    /** The rank of an activity metric: lower is preferred. */
    static int rank(String metric) {
        if (metric == null) {
            return 9;
        }
        return switch (metric) {
            case "GR_ENGINE_ACTIVE" -> 0;
            case "SM_ACTIVE" -> 1;
            case "GPU_UTIL" -> 2;
            default -> 3;
        };
    }

    /**
     * The slots of a share with {@code migProfile} (null: the whole card) from its card's rows
     * ({@code deviceRows}: one device), in time order.
     */
    static List<Slot> of(List<SampleRollup> deviceRows, String migProfile) {
        // per instance (null for the card) and slot: the preferred metric's weighted figures, and framebuffer
        Map<Long, Map<Integer, double[]>> bySlot = new TreeMap<>();
        Map<Long, Map<Integer, String>> metricOf = new HashMap<>();
        for (SampleRollup r : deviceRows) {
            boolean mine = migProfile == null ? r.migProfile() == null && r.gpuInstanceId() == null
                    : migProfile.equals(r.migProfile());
            if (!mine) {
                continue;
            }
            long slot = r.bucket().toEpochMilli();
            Integer instance = r.gpuInstanceId() == null ? -1 : r.gpuInstanceId();
            double[] f = bySlot.computeIfAbsent(slot, k -> new HashMap<>())
                    .computeIfAbsent(instance, k -> new double[]{0, 0, Double.NEGATIVE_INFINITY, 0, 0});
            // f: [0] Σ activity × n, [1] n, [2] max, [3] Σ framebuffer × n, [4] n with framebuffer
            if (r.framebufferAvgMib() != null) {
                f[3] += (double) r.framebufferAvgMib() * r.sampleCount();
                f[4] += r.sampleCount();
            }
            if (r.activityAvg() == null || r.metric() == null) {
                continue;
            }
            Map<Integer, String> metrics = metricOf.computeIfAbsent(slot, k -> new HashMap<>());
            String held = metrics.get(instance);
            if (held != null && rank(r.metric()) > rank(held)) {
                continue; // a better metric measured this slot
            }
            if (held != null && rank(r.metric()) < rank(held)) {
                f[0] = 0;
                f[1] = 0;
                f[2] = Double.NEGATIVE_INFINITY;
            }
            metrics.put(instance, r.metric());
            f[0] += r.activityAvg() * r.sampleCount();
            f[1] += r.sampleCount();
            f[2] = Math.max(f[2], r.activityMax() == null ? r.activityAvg() : r.activityMax());
        }
        List<Slot> out = new ArrayList<>(bySlot.size());
        bySlot.forEach((slot, instances) -> {
            double sum = 0;
            int measured = 0;
            double max = Double.NEGATIVE_INFINITY;
            String metric = null;
            double fb = 0;
            int fbInstances = 0;
            for (Map.Entry<Integer, double[]> e : instances.entrySet()) {
                double[] f = e.getValue();
                if (f[1] > 0) {
                    sum += f[0] / f[1];
                    measured++;
                    max = Math.max(max, f[2]);
                    String m = metricOf.get(slot).get(e.getKey());
                    if (metric == null || rank(m) < rank(metric)) {
                        metric = m;
                    }
                }
                if (f[4] > 0) {
                    fb += f[3] / f[4];
                    fbInstances++;
                }
            }
            out.add(new Slot(slot, measured == 0 ? Double.NaN : sum / measured, max, metric,
                    fbInstances == 0 ? null : fb / fbInstances));
        });
        return out;
    }

    /** Framebuffer of a MIG profile such as {@code 3g.40gb}, in MiB; null when the name does not say. */
    static Long profileMemoryMib(String migProfile) {
        if (migProfile == null) {
            return null;
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\.(\\d+)gb").matcher(migProfile.toLowerCase(java.util.Locale.ROOT));
        return m.find() ? Long.parseLong(m.group(1)) * 1024 : null;
    }
}
