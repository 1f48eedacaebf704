package io.gpupool.store;

import java.util.ArrayList;
import java.util.List;

/**
 * Thrown out of a batch's transaction (rolling it back) when a failure cannot be confined to one
 * mutation without a savepoint: a failed mutation whose rows already reached the database, a
 * failure other than a refusal, or a failed flush. The writer then replays the batch in parts
 * ({@link #parts}), each in a transaction of its own, until every failure stays with the mutation
 * that caused it and the others commit.
 */
final class ReplayInParts extends RuntimeException {
    private final int failedWrite;

    /** @param failedWrite index of the write that failed in the batch, or -1 when unknown (a flush). */
    ReplayInParts(Throwable cause, int failedWrite) {
        super("batch replayed in parts: " + cause, cause);
        this.failedWrite = failedWrite;
    }

    /**
     * The writes before the failed one, the failed one alone, and the writes after it; when the
     * failed write is unknown, two halves (a part that fails again is split again, down to single
     * writes, which fail alone).
     */
    <T> List<List<T>> parts(List<T> writes) {
        List<List<T>> parts = new ArrayList<>();
        if (failedWrite >= 0 && failedWrite < writes.size()) {
            addIfAny(parts, writes.subList(0, failedWrite));
            parts.add(writes.subList(failedWrite, failedWrite + 1));
            addIfAny(parts, writes.subList(failedWrite + 1, writes.size()));
        } else {
            addIfAny(parts, writes.subList(0, writes.size() / 2));
            addIfAny(parts, writes.subList(writes.size() / 2, writes.size()));
        }
        return parts;
    }

    private static <T> void addIfAny(List<List<T>> parts, List<T> part) {
        if (!part.isEmpty()) {
            parts.add(List.copyOf(part));
        }
    }
}
