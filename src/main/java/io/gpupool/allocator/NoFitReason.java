package io.gpupool.allocator;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * Why a request does not fit now: how many nodes each constraint eliminated (each node counted
 * once, under the first constraint it fails), and the largest gang of this request's members that
 * would fit right now (0 when not even one member fits).
 */
public record NoFitReason(Map<Constraint, Integer> eliminatedNodes, int largestGangNow, int nodesConsidered) {
    public NoFitReason {
        EnumMap<Constraint, Integer> copy = new EnumMap<>(Constraint.class);
        copy.putAll(eliminatedNodes);
        eliminatedNodes = Collections.unmodifiableMap(copy);
    }

    public int eliminatedBy(Constraint c) {
        return eliminatedNodes.getOrDefault(c, 0);
    }

    /** The constraint that eliminated the most nodes. */
    public Constraint dominant() {
        Constraint best = Constraint.GPU_CAPACITY;
        int max = -1;
        for (Map.Entry<Constraint, Integer> e : eliminatedNodes.entrySet()) {
            if (e.getValue() > max) {
                max = e.getValue();
                best = e.getKey();
            }
        }
        return best;
    }

    public String message() {
        StringBuilder sb = new StringBuilder("does not fit on any of ").append(nodesConsidered).append(" nodes:");
        eliminatedNodes.forEach((c, n) -> {
            if (n > 0) {
                sb.append(' ').append(n).append(" with ").append(c.meaning()).append(';');
            }
        });
        return sb.append(" largest gang placeable now: ").append(largestGangNow).toString();
    }
}
