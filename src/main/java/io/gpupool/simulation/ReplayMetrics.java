package io.gpupool.simulation;

import io.gpupool.snapshot.PoolSnapshot;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The replay's figures, computed from one {@link PolicyRun} by pure functions (docs/policy-replay.md,
 * "Metrics"): requests placed, queued at the end, rejected, refused and cancelled; wait percentiles
 * (placed jobs, arrival to placement) overall and by tenant, priority class, kind and card model;
 * preemptions and the GPU-hours of work they cost; GPU-hours reclaimed by rule; GPU-hours held and
 * (through {@link ReplayPricing}, the live cost report's pricing) cost by tenant; mean allocated and
 * effective utilisation and fragmentation over the window.
 */
public final class ReplayMetrics {
    private ReplayMetrics() {
    }

    public static List<Metric> of(PolicyRun run, Workload workload, PoolSnapshot fleet, ReplayPricing pricing) {
        Instant windowEnd = workload.to();
        List<Metric> out = new ArrayList<>();
        Map<JobFate.Outcome, Integer> outcomes = new TreeMap<>();
        Arrays.stream(JobFate.Outcome.values()).forEach(o -> outcomes.put(o, 0));
        run.fates().forEach(f -> outcomes.merge(f.outcome(), 1, Integer::sum));
        out.add(new Metric("requests", "all", run.fates().size()));
        outcomes.forEach((o, n) -> out.add(new Metric("requests_" + o.name().toLowerCase(java.util.Locale.ROOT), "all", n)));
        waits(run.fates(), "all", f -> "all", out);
        waits(run.fates(), "tenant", JobFate::tenant, out);
        waits(run.fates(), "class", JobFate::priorityClass, out);
        waits(run.fates(), "kind", f -> f.kind().name(), out);
        waits(run.fates(), "model", JobFate::model, out);
        out.add(new Metric("preemptions", "all", run.preemptions()));
        out.add(new Metric("preempted_gpu_hours_lost", "all", run.fates().stream().mapToDouble(JobFate::lostGpuHours).sum()));
        out.add(new Metric("reclaimed_gpu_hours", "all", run.reclaimedGpuHours().values().stream().mapToDouble(Double::doubleValue).sum()));
        run.reclaimedGpuHours().forEach((rule, hours) -> out.add(new Metric("reclaimed_gpu_hours", "rule=" + rule, hours)));
        Map<String, Double> held = new TreeMap<>();
        for (JobFate f : run.fates()) {
            if (f.placedAt() != null) {
                Instant end = f.endedAt() == null ? windowEnd : f.endedAt();
                double hours = f.gpus() * Duration.between(f.placedAt(), end).toMillis() / 3_600_000.0;
                held.merge(f.tenant(), hours, Double::sum);
            }
        }
        held.forEach((tenant, hours) -> out.add(new Metric("gpu_hours_held", "tenant=" + tenant, hours)));
        out.addAll(pricing.metrics(run, fleet, workload.from(), workload.to()));
        out.add(new Metric("allocated_utilisation_mean", "all", mean(run.samples(), FleetSample::allocated)));
        out.add(new Metric("effective_utilisation_mean", "all", mean(run.samples(), FleetSample::effective)));
        out.add(new Metric("fragmentation_mean", "all", mean(run.samples(), FleetSample::fragmentation)));
        return out;
    }

    private static void waits(List<JobFate> fates, String dimension, Function<JobFate, String> groupOf, List<Metric> out) {
        Map<String, List<Long>> byGroup = new TreeMap<>();
        for (JobFate f : fates) {
            if (f.placedAt() != null) {
                byGroup.computeIfAbsent(groupOf.apply(f), k -> new ArrayList<>()).add(f.waitSeconds());
            }
        }
        byGroup.forEach((group, waits) -> {
            long[] sorted = waits.stream().mapToLong(Long::longValue).sorted().toArray();
            String g = dimension.equals("all") ? "all" : dimension + "=" + group;
            out.add(new Metric("wait_p50_s", g, percentile(sorted, 50)));
            out.add(new Metric("wait_p90_s", g, percentile(sorted, 90)));
            out.add(new Metric("wait_p99_s", g, percentile(sorted, 99)));
        });
    }

    /** The nearest-rank percentile {@code p} (0..100) of ascending {@code sorted}; NaN when empty. */
    public static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static double mean(List<FleetSample> samples, java.util.function.ToDoubleFunction<FleetSample> of) {
        return samples.stream().mapToDouble(of).filter(d -> !Double.isNaN(d)).average().orElse(Double.NaN);
    }
}
