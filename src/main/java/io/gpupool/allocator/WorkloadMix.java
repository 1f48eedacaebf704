package io.gpupool.allocator;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The "target workload" M of the FGD paper: the most frequent task shapes covering at least
 * {@code coverage} of the observed tasks, with probabilities renormalised to 1. Immutable; compiled
 * against a view's model table on demand (and cached for that table).
 */
public final class WorkloadMix {
    public static final double PAPER_COVERAGE = 0.95;

    private final List<TaskShape> shapes;
    private final double[] probability;
    private CompiledMix compiled;
    private Object compiledFor;

    private WorkloadMix(List<TaskShape> shapes, double[] probability) {
        this.shapes = List.copyOf(shapes);
        this.probability = probability;
    }

    public static WorkloadMix of(Map<TaskShape, Long> counts, double coverage) {
        Map<TaskShape, Double> weights = new LinkedHashMap<>();
        counts.forEach((k, v) -> weights.put(k, v.doubleValue()));
        return ofWeights(weights, coverage);
    }

    /** Like {@link #of} with real-valued weights (e.g. decayed counts). */
    public static WorkloadMix ofWeights(Map<TaskShape, Double> counts, double coverage) {
        List<Map.Entry<TaskShape, Double>> ranked = new ArrayList<>(counts.entrySet());
        ranked.sort(Comparator.comparing((Map.Entry<TaskShape, Double> e) -> -e.getValue())
                .thenComparing(e -> e.getKey().key()));
        double total = 0;
        for (Map.Entry<TaskShape, Double> e : ranked) {
            total += e.getValue();
        }
        List<TaskShape> kept = new ArrayList<>();
        List<Double> keptCounts = new ArrayList<>();
        double covered = 0;
        for (Map.Entry<TaskShape, Double> e : ranked) {
            if (total > 0 && covered >= coverage * total) {
                break;
            }
            kept.add(e.getKey());
            keptCounts.add(e.getValue());
            covered += e.getValue();
        }
        double[] p = new double[kept.size()];
        for (int i = 0; i < p.length; i++) {
            p[i] = keptCounts.get(i) / covered;
        }
        return new WorkloadMix(kept, p);
    }

    /** The paper's target workload of a request list (memory-blind shapes). */
    public static WorkloadMix fromRequests(Iterable<PlacementRequest> requests, double coverage) {
        return fromRequests(requests, coverage, false);
    }

    public static WorkloadMix fromRequests(Iterable<PlacementRequest> requests, double coverage, boolean withMemory) {
        Map<TaskShape, Long> counts = new LinkedHashMap<>();
        for (PlacementRequest r : requests) {
            counts.merge(TaskShape.of(r, withMemory), 1L, Long::sum);
        }
        return of(counts, coverage);
    }

    public static WorkloadMix empty() {
        return new WorkloadMix(List.of(), new double[0]);
    }

    public List<TaskShape> shapes() {
        return shapes;
    }

    public double probability(int i) {
        return probability[i];
    }

    public int size() {
        return shapes.size();
    }

    /** The mix as arrays indexed against this view's models; cached per view lineage. */
    public synchronized CompiledMix compile(CapacityView view) {
        if (compiled == null || compiledFor != view.lineage()) {
            compiled = new CompiledMix(this, view);
            compiledFor = view.lineage();
        }
        return compiled;
    }
}
