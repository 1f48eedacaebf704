package io.gpupool.allocator;

import java.util.Arrays;

/**
 * Per-decision memo of node scores keyed by a hash of the node's state, for strategies whose score
 * is a function of that state alone ({@link PlacementStrategy#scoresNodeStateOnly()}). Many nodes
 * are interchangeable (idle nodes of one model, nodes filled the same way), so a decision scores
 * each distinct state once. Open addressing over primitive arrays, cleared by an epoch counter:
 * no allocation per decision. A 64-bit hash collision would only cost placement quality, never
 * feasibility (feasibility is checked per node before the memo is consulted). Keyed on the node's
 * state and on its cards the member may take ({@link #signature}).
 */
final class ScoreMemo {
    private static final int SIZE = 1 << 12;
    private static final int MAX_FILL = SIZE / 2;
    private final long[] keys = new long[SIZE];
    private final double[] values = new double[SIZE];
    private final int[] epochs = new int[SIZE];
    private int epoch = 1;
    private int fill;

    void clear() {
        epoch++;
        fill = 0;
        if (epoch == Integer.MAX_VALUE) {
            Arrays.fill(epochs, 0);
            epoch = 1;
        }
    }

    /** The memoised score, or NaN. */
    double get(long key) {
        for (int i = slot(key); epochs[i] == epoch; i = (i + 1) & (SIZE - 1)) {
            if (keys[i] == key) {
                return values[i];
            }
        }
        return Double.NaN;
    }

    void put(long key, double value) {
        if (fill >= MAX_FILL) {
            return;
        }
        int i = slot(key);
        while (epochs[i] == epoch) {
            i = (i + 1) & (SIZE - 1);
        }
        keys[i] = key;
        values[i] = value;
        epochs[i] = epoch;
        fill++;
    }

    private static int slot(long key) {
        return (int) (key ^ (key >>> 29)) & (SIZE - 1);
    }

    private Object lineage;
    private long[] stateStamp = new long[0];
    private long[] stateHash = new long[0];
    /** Each card's own state hash, made with its node's state hash and kept as long as it. */
    private long[] cardHash = new long[0];

    /**
     * Signature of the node's state and of which of its cards the candidate may take (each eligible
     * card's own state, order-insensitive): the state part and the cards' hashes are cached by node
     * stamp. Which cards are eligible (labels, per-card pools, the NVLink domain) is not part of the
     * node's state, and a score that places on the cards it is given depends on it: two nodes alike
     * but for which card carries a required label are not interchangeable.
     */
    long signature(CapacityView view, Candidate c, int node) {
        if (view.lineage() != lineage || stateStamp.length != view.nodeCount()) {
            lineage = view.lineage();
            stateStamp = new long[view.nodeCount()];
            stateHash = new long[view.nodeCount()];
            cardHash = new long[view.gpuCount()];
        }
        long stamp = view.stamp(node);
        if (stateStamp[node] != stamp) {
            stateHash[node] = stateSignature(view, node, cardHash);
            stateStamp[node] = stamp;
        }
        long eligible = c.count;
        for (int i = 0; i < c.count; i++) {
            eligible += mix(cardHash[c.gpus[i]] ^ ELIGIBLE);
        }
        return mix(stateHash[node] ^ Long.rotateLeft(mix(eligible), 8));
    }

    private static final long ELIGIBLE = 0x2545F4914F6CDD1DL;

    /** Order-insensitive hash of what a state-only score may depend on; each card's own hash left in {@code cards}. */
    static long stateSignature(CapacityView view, int node, long[] cards) {
        CapacityLayout l = view.layout;
        long sum = 0;
        long xor = 0;
        for (int g = l.gpuStart[node]; g < l.gpuStart[node + 1]; g++) {
            long gpu = mix(((long) view.freeMilli(g) << 32) ^ ((long) l.gpuModel[g] << 20) ^ l.gpuMemoryMib[g]
                    ^ (l.gpuSchedulable[g] ? 1L << 62 : 0) ^ (l.gpuMig[g] ? 1L << 61 : 0));
            cards[g] = gpu;
            sum += gpu;
            xor ^= Long.rotateLeft(gpu, 17);
        }
        long h = mix(sum ^ Long.rotateLeft(xor, 31));
        h = mix(h ^ view.cpuFree(node));
        h = mix(h ^ view.memoryFree(node) * 0x9E3779B97F4A7C15L);
        return mix(h ^ ((long) view.classesOn(node) << 40) ^ (l.gpuStart[node + 1] - l.gpuStart[node]));
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
