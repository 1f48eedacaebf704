package io.gpupool.allocator;

/** An {@code int} array in chunks shared with its copies until written ({@link SharedChunks}). */
final class ChunkedInts {
    private final int[][] chunks;
    private final SharedChunks claims;
    final int length;

    /** The values, in chunks of their own (the array is not kept), every chunk claimed. */
    ChunkedInts(int[] values) {
        this.length = values.length;
        this.chunks = new int[SharedChunks.chunksFor(length)][];
        for (int c = 0; c < chunks.length; c++) {
            int from = c << SharedChunks.SHIFT;
            chunks[c] = java.util.Arrays.copyOfRange(values, from, from + SharedChunks.MASK + 1);
        }
        this.claims = new SharedChunks(chunks.length, true);
    }

    private ChunkedInts(ChunkedInts from) {
        from.claims.release();
        this.length = from.length;
        this.chunks = from.chunks.clone();
        this.claims = new SharedChunks(chunks.length, false);
    }

    /** Gives up every claim: from now on this instance is only read (it has been handed out). */
    void giveUpClaims() {
        claims.release();
    }

    /** A copy sharing every chunk; from now on each side copies a chunk before its first write. */
    ChunkedInts copy() {
        return new ChunkedInts(this);
    }

    int get(int i) {
        return chunks[i >>> SharedChunks.SHIFT][i & SharedChunks.MASK];
    }

    void set(int i, int value) {
        int c = i >>> SharedChunks.SHIFT;
        if (!claims.ownsOrClaims(c)) {
            chunks[c] = chunks[c].clone();
        }
        chunks[c][i & SharedChunks.MASK] = value;
    }

    void add(int i, int delta) {
        set(i, get(i) + delta);
    }
}
