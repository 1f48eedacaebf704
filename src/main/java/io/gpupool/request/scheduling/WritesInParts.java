package io.gpupool.request.scheduling;

import io.gpupool.store.Mutation;
import java.util.List;

/** Independent lease changes of one step written a part at a time (a sweep's orders, grace periods ending). */
final class WritesInParts {
    private WritesInParts() {
    }

    /**
     * How many independent lease changes of one step (a sweep's reclaim orders, the ends of grace
     * periods nobody waits for) one write states. Each change reads and changes only its own lease
     * (and that lease's request), so stating a part of them in one write leaves the model, the rows
     * and the decision log exactly as one write each would, in the same order; but it builds one
     * snapshot (and one delta, which derived inputs follow) per part instead of per lease: a sweep at
     * scale orders tens of thousands of reclaims (docs/performance.md, "Dry-run at scale"). Small
     * enough that a live write holds the writer no longer than a batch of ordinary writes does.
     */
    static final int CHANGES_PER_WRITE = 256;

    /**
     * Writes {@code items} {@code perWrite} at a time, each part as the one mutation {@code change}
     * makes of it. A part whose write fails (nothing of it was written) is written again one item at
     * a time, so what one write each would have made is made, up to the item that fails, which
     * throws as it would have: the same changes, in the same order, as one write per item.
     */
    static <T> void inParts(ModelWriter model, List<T> items, int perWrite,
                            java.util.function.Function<List<T>, Mutation<?>> change) {
        if (perWrite < 1) {
            throw new IllegalArgumentException("perWrite must be at least 1, was " + perWrite);
        }
        for (int from = 0; from < items.size(); from += perWrite) {
            List<T> part = List.copyOf(items.subList(from, Math.min(items.size(), from + perWrite)));
            if (part.size() == 1) {
                model.write(change.apply(part));
                continue;
            }
            try {
                model.write(change.apply(part));
            } catch (RuntimeException failed) {
                for (T item : part) {
                    model.write(change.apply(List.of(item)));
                }
            }
        }
    }
}
