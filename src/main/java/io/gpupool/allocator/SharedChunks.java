package io.gpupool.allocator;

/**
 * Which chunks of a chunked array one instance may write in place: those it made or copied itself
 * and has not shared since (an instance made from plain values owns all of its chunks). Copies of a {@link CapacityView} share every chunk neither of them has
 * written (copy on write), so a view derived from another by one placement copies the chunk table
 * and the few chunks the placement lands in, not the fleet's arrays (10,000 cards on 1,250 nodes: ~7 KiB instead of
 * ~90 KiB a write; docs/performance.md, "Dry-run at scale").
 *
 * <p>Copying an instance gives up its claims too ({@link #release}): after a copy, neither side
 * may write a chunk the other can see. A published view claims nothing, so copying it writes
 * nothing to it and readers on other threads are never raced.
 */
final class SharedChunks {
    /** 128 elements a chunk: 512 bytes of ints, 1 KiB of longs (a fleet of 1,250 nodes has 10 per node array). */
    static final int SHIFT = 7;
    static final int MASK = (1 << SHIFT) - 1;

    private final long[] owned;

    /** Claims for {@code chunks} chunks: all of them ({@code all}: chunks just made for this instance) or none. */
    SharedChunks(int chunks, boolean all) {
        this.owned = new long[(chunks + 63) >>> 6];
        if (all) {
            java.util.Arrays.fill(owned, -1L);
        }
    }

    static int chunksFor(int length) {
        return Math.max(1, (length + MASK) >>> SHIFT);
    }

    /** Whether chunk {@code c} is this instance's own; if not, claims it: the caller copies it before writing. */
    boolean ownsOrClaims(int c) {
        long bit = 1L << c;
        int w = c >>> 6;
        if ((owned[w] & bit) != 0) {
            return true;
        }
        owned[w] |= bit;
        return false;
    }

    /** Gives up every claim (the instance is being copied); writes nothing when there is none. */
    void release() {
        for (int w = 0; w < owned.length; w++) {
            if (owned[w] != 0) {
                owned[w] = 0;
            }
        }
    }
}
