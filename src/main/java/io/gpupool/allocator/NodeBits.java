package io.gpupool.allocator;

/**
 * Node sets as plain {@code long[]} bitsets (bit i = node i). The candidate indexes are kept this
 * way so that a decision combines them with a few word operations instead of scanning every node,
 * and copying them on commit costs a few hundred bytes.
 */
public final class NodeBits {
    private NodeBits() {
    }

    public static int words(int nodes) {
        return (nodes + 63) >>> 6;
    }

    public static void set(long[] bits, int node, boolean on) {
        if (on) {
            bits[node >>> 6] |= 1L << node;
        } else {
            bits[node >>> 6] &= ~(1L << node);
        }
    }

    public static boolean get(long[] bits, int node) {
        return (bits[node >>> 6] & (1L << node)) != 0;
    }

    /** Next set bit at or after {@code from}, or -1. */
    public static int next(long[] bits, int from) {
        int w = from >>> 6;
        if (w >= bits.length) {
            return -1;
        }
        long word = bits[w] & (-1L << from);
        while (true) {
            if (word != 0) {
                return (w << 6) + Long.numberOfTrailingZeros(word);
            }
            if (++w == bits.length) {
                return -1;
            }
            word = bits[w];
        }
    }

    public static int count(long[] bits) {
        int n = 0;
        for (long word : bits) {
            n += Long.bitCount(word);
        }
        return n;
    }

    public static void and(long[] into, long[] other) {
        for (int i = 0; i < into.length; i++) {
            into[i] &= other[i];
        }
    }

    public static void or(long[] into, long[] other) {
        for (int i = 0; i < into.length; i++) {
            into[i] |= other[i];
        }
    }
}
