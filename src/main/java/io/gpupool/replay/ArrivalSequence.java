package io.gpupool.replay;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * The paper's arrival order ("inflation", PROTOCOL.md §4 steps 3–4): sort by name, shuffle with the
 * seed's stream, then pad with uniform with-replacement resamples (renamed copies) until the next
 * one would push the total GPU request above {@code factor} × capacity — or, if the list already
 * exceeds it, drop randomly chosen pods until it does not.
 */
public final class ArrivalSequence {
    public static final double PAPER_FACTOR = 1.3;

    private ArrivalSequence() {
    }

    public static List<TracePod> of(List<TracePod> original, Random random, long capacityMilli, double factor) {
        List<TracePod> sorted = new ArrayList<>(original);
        sorted.sort(Comparator.comparing(TracePod::name));
        List<TracePod> sequence = new ArrayList<>(sorted);
        java.util.Collections.shuffle(sequence, random);
        double limit = factor * capacityMilli;
        long total = 0;
        for (TracePod p : sequence) {
            total += p.requestedMilli();
        }
        if (total > limit) {
            while (total > limit) {
                TracePod removed = sequence.remove(random.nextInt(sequence.size()));
                total -= removed.requestedMilli();
            }
            return sequence;
        }
        int copy = 0;
        while (!sorted.isEmpty()) {
            TracePod pick = sorted.get(random.nextInt(sorted.size()));
            if (total + pick.requestedMilli() > limit) {
                break;
            }
            sequence.add(pick.renamed(pick.name() + "-resample-" + copy++));
            total += pick.requestedMilli();
        }
        return sequence;
    }
}
