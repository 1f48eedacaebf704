package io.gpupool.allocator;

/**
 * Free MIG partitions per card and profile, in chunks shared with copies until written
 * ({@link SharedChunks}); a card's own row is copied before it changes too, so rows are shared
 * between views as well. Null rows for cards without MIG.
 */
final class ChunkedMigFree {
    private final int[][][] chunks;
    private final SharedChunks claims;

    /** The rows, in chunks of their own, every chunk claimed (the rows themselves are shared, never written). */
    ChunkedMigFree(int[][] rows) {
        this.chunks = new int[SharedChunks.chunksFor(rows.length)][][];
        for (int c = 0; c < chunks.length; c++) {
            int from = c << SharedChunks.SHIFT;
            chunks[c] = java.util.Arrays.copyOfRange(rows, from, from + SharedChunks.MASK + 1);
        }
        this.claims = new SharedChunks(chunks.length, true);
    }

    private ChunkedMigFree(ChunkedMigFree from) {
        from.claims.release();
        this.chunks = from.chunks.clone();
        this.claims = new SharedChunks(chunks.length, false);
    }

    /** Gives up every claim: from now on this instance is only read (it has been handed out). */
    void giveUpClaims() {
        claims.release();
    }

    ChunkedMigFree copy() {
        return new ChunkedMigFree(this);
    }

    /** The card's free partitions per profile, or null for a card without MIG; never to be written. */
    int[] row(int gpu) {
        return chunks[gpu >>> SharedChunks.SHIFT][gpu & SharedChunks.MASK];
    }

    /** Adds {@code delta} partitions of {@code profile} on the card, copying its row first. */
    void add(int gpu, int profile, int delta) {
        int c = gpu >>> SharedChunks.SHIFT;
        if (!claims.ownsOrClaims(c)) {
            chunks[c] = chunks[c].clone();
        }
        int[] row = chunks[c][gpu & SharedChunks.MASK].clone();
        row[profile] += delta;
        chunks[c][gpu & SharedChunks.MASK] = row;
    }
}
