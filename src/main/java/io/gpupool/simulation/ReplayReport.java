package io.gpupool.simulation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a replay reports, from its runs by pure functions: the summary (one row per policy and
 * metric, with the delta against the baseline policy) and the requests whose fate differs most
 * between the baseline and each other policy, with both explanations.
 */
public final class ReplayReport {
    /** One summary row; {@code delta} is value − the baseline's value (0 for the baseline; NaN when either is). */
    public record SummaryRow(String policy, String metric, String group, double value, double delta) {
    }

    /** One request under the baseline and under a candidate, and how much its fate differs. */
    public record FateDifference(String candidate, JobFate baseline, JobFate other, double score) {
    }

    private ReplayReport() {
    }

    public static List<SummaryRow> summary(PolicyReplay.Result result, ReplayPricing pricing) {
        List<SummaryRow> rows = new ArrayList<>();
        Map<String, Double> base = new HashMap<>();
        List<List<Metric>> perRun = new ArrayList<>();
        for (PolicyRun run : result.runs()) {
            perRun.add(ReplayMetrics.of(run, result.workload(), result.fleet(), pricing));
        }
        perRun.get(0).forEach(m -> base.put(m.key(), m.value()));
        Map<String, Metric> keys = new LinkedHashMap<>(); // every metric any run has, the baseline's order first
        perRun.forEach(ms -> ms.forEach(m -> keys.putIfAbsent(m.key(), m)));
        for (int i = 0; i < result.runs().size(); i++) {
            Map<String, Double> mine = new HashMap<>();
            perRun.get(i).forEach(m -> mine.put(m.key(), m.value()));
            String label = result.runs().get(i).label();
            for (Metric m : keys.values()) {
                double value = mine.getOrDefault(m.key(), m.name().startsWith("wait_") ? Double.NaN : 0.0);
                double baseline = base.getOrDefault(m.key(), m.name().startsWith("wait_") ? Double.NaN : 0.0);
                rows.add(new SummaryRow(label, m.name(), m.group(), value, value - baseline));
            }
        }
        return rows;
    }

    /** The {@code limit} requests whose fate differs most between the baseline and each other run. */
    public static List<FateDifference> differences(PolicyReplay.Result result, int limit) {
        Map<String, JobFate> base = new HashMap<>();
        result.baseline().fates().forEach(f -> base.put(f.id(), f));
        List<FateDifference> out = new ArrayList<>();
        for (PolicyRun run : result.runs().subList(1, result.runs().size())) {
            run.fates().stream()
                    .map(f -> new FateDifference(run.label(), base.get(f.id()), f, score(base.get(f.id()), f)))
                    .filter(d -> d.baseline() != null && d.score() > 0)
                    .sorted(Comparator.comparingDouble(FateDifference::score).reversed()
                            .thenComparing(d -> d.other().id()))
                    .limit(limit).forEach(out::add);
        }
        return out;
    }

    /**
     * How much two fates of one request differ: a different outcome (placed or not) outweighs a
     * different end of its lease (preempted, reclaimed), which outweighs any difference in wait;
     * within each, by the GPUs concerned and the wait in seconds.
     */
    static double score(JobFate a, JobFate b) {
        if (a == null) {
            return 0;
        }
        double waitDiff = a.placedAt() != null && b.placedAt() != null ? Math.abs(a.waitSeconds() - b.waitSeconds()) : 0;
        if (a.outcome() != b.outcome()) {
            return 1e12 + a.gpus() * 1e6 + waitDiff;
        }
        if (a.end() != b.end()) {
            return 1e9 + a.gpus() * 1e3 + waitDiff;
        }
        return waitDiff;
    }
}
