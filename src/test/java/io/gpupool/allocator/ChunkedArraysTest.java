package io.gpupool.allocator;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chunked arrays under {@link CapacityView} read, after any mix of copies and writes, as plain
 * arrays given the same changes: no write to one copy ever shows through another, whichever of the
 * two was copied from the other and whenever it writes.
 */
class ChunkedArraysTest {
    private static final int LENGTH = 3 * (SharedChunks.MASK + 1) + 17; // a partial last chunk

    @Test
    void everyCopyOfAChunkedIntArrayReadsAsAPlainArrayGivenTheSameWrites() {
        Random random = new Random(11);
        List<ChunkedInts> chunked = new ArrayList<>();
        List<int[]> plain = new ArrayList<>();
        int[] start = random.ints(LENGTH, 0, 1000).toArray();
        chunked.add(new ChunkedInts(start));
        plain.add(start.clone());
        for (int step = 0; step < 5_000; step++) {
            int which = random.nextInt(chunked.size());
            if (random.nextInt(8) == 0 && chunked.size() < 40) {
                chunked.add(chunked.get(which).copy());
                plain.add(plain.get(which).clone());
            } else {
                int i = random.nextInt(LENGTH);
                int value = random.nextInt();
                chunked.get(which).set(i, value);
                plain.get(which)[i] = value;
            }
        }
        for (int c = 0; c < chunked.size(); c++) {
            assertThat(read(chunked.get(c))).as("copy %d", c).isEqualTo(plain.get(c));
        }
    }

    @Test
    void aWriteAfterTheOriginalWasCopiedStaysOnItsOwnSide() {
        ChunkedLongs original = new ChunkedLongs(new long[LENGTH]);
        original.set(5, 1); // claims chunk 0
        ChunkedLongs copy = original.copy();

        original.set(6, 2); // chunk 0 again: must be copied first, the copy shares it
        copy.set(7, 3);

        assertThat(original.get(6)).isEqualTo(2);
        assertThat(copy.get(6)).isZero();
        assertThat(copy.get(7)).isEqualTo(3);
        assertThat(original.get(7)).isZero();
        assertThat(copy.get(5)).isEqualTo(1);
    }

    @Test
    void aCardsMigRowIsCopiedBeforeItChangesSoEarlierCopiesKeepTheirs() {
        int[][] rows = new int[LENGTH][];
        rows[LENGTH - 1] = new int[] {2, 1};
        ChunkedMigFree first = new ChunkedMigFree(rows);
        ChunkedMigFree second = first.copy();

        second.add(LENGTH - 1, 0, -1);
        second.add(LENGTH - 1, 1, -1);

        assertThat(first.row(LENGTH - 1)).containsExactly(2, 1);
        assertThat(second.row(LENGTH - 1)).containsExactly(1, 0);
        assertThat(rows[LENGTH - 1]).as("the rows it was made from").containsExactly(2, 1);
        assertThat(second.row(0)).isNull();
    }

    private static int[] read(ChunkedInts array) {
        int[] out = new int[array.length];
        Arrays.setAll(out, array::get);
        return out;
    }
}
