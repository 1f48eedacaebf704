package io.gpupool.store;

import io.gpupool.store.LedgerStore.Column;
import io.gpupool.store.row.LedgerEntryRow;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How a report's buckets are cut into rollup periods ({@link Pieces}): whole UTC days only where a
 * day lies wholly inside one bucket, hours elsewhere, neighbouring periods of one span merged into
 * one range; and which questions the rollup can answer at all ({@link LedgerRollupStore#keeps}).
 */
class PiecesTest {
    private static final long HOUR = LedgerRollupStore.HOUR_MS;
    private static final long DAY = LedgerRollupStore.DAY_MS;
    /** Midnight UTC, 1 November 2026. */
    private static final long NOV_1 = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();

    private static long[] range(long span, long from, long to) {
        return new long[] {span, from, to};
    }

    @Test
    void aBucketOfWholeDaysIsReadAsOneRangeOfDays() {
        assertThat(Pieces.of(new long[] {NOV_1, NOV_1 + 3 * DAY})).containsExactly(range(DAY, NOV_1, NOV_1 + 3 * DAY));
    }

    @Test
    void theHoursBeforeTheFirstMidnightAndAfterTheLastAreReadAsHours() {
        long from = NOV_1 + 22 * HOUR;
        long to = NOV_1 + 2 * DAY + 5 * HOUR;

        assertThat(Pieces.of(new long[] {from, to})).containsExactly(
                range(HOUR, from, NOV_1 + DAY),
                range(DAY, NOV_1 + DAY, NOV_1 + 2 * DAY),
                range(HOUR, NOV_1 + 2 * DAY, to));
    }

    @Test
    void aDayCutByABucketBoundaryIsReadAsHoursSoEveryPeriodBelongsToOneBucket() {
        long noon = NOV_1 + 12 * HOUR;

        assertThat(Pieces.of(new long[] {NOV_1, noon, NOV_1 + 2 * DAY})).containsExactly(
                range(HOUR, NOV_1, NOV_1 + DAY),   // the first day is cut at noon: 24 hours, merged across the cut
                range(DAY, NOV_1 + DAY, NOV_1 + 2 * DAY));
    }

    @Test
    void aWindowShorterThanADayIsOnlyHoursEvenFromMidnight() {
        assertThat(Pieces.of(new long[] {NOV_1, NOV_1 + 23 * HOUR})).containsExactly(range(HOUR, NOV_1, NOV_1 + 23 * HOUR));
    }

    @Test
    void daysInNeighbouringBucketsMergeIntoOneRange() {
        assertThat(Pieces.of(new long[] {NOV_1, NOV_1 + DAY, NOV_1 + 2 * DAY, NOV_1 + 4 * DAY}))
                .containsExactly(range(DAY, NOV_1, NOV_1 + 4 * DAY));
    }

    @Test
    void theRangesCoverTheWindowExactlyWithoutGapsOrOverlaps() {
        long[] bounds = {NOV_1 + 5 * HOUR, NOV_1 + DAY + 3 * HOUR, NOV_1 + 3 * DAY, NOV_1 + 3 * DAY + HOUR, NOV_1 + 6 * DAY + 7 * HOUR};

        List<long[]> ranges = Pieces.of(bounds);

        long at = bounds[0];
        for (long[] r : ranges) {
            assertThat(r[1]).as("a range starts where the previous ended").isEqualTo(at);
            assertThat((r[2] - r[1]) % r[0]).as("a range is whole periods").isZero();
            if (r[0] == DAY) {
                assertThat(Math.floorMod(r[1], DAY)).as("a day starts at midnight").isZero();
            }
            at = r[2];
        }
        assertThat(at).isEqualTo(bounds[bounds.length - 1]);
        assertThat(ranges).anySatisfy(r -> assertThat(r[0]).isEqualTo(DAY));
    }

    @Test
    void anEmptyWindowHasNoRanges() {
        assertThat(Pieces.of(new long[] {NOV_1})).isEmpty();
        assertThat(Pieces.of(new long[] {NOV_1, NOV_1})).isEmpty();
    }

    @Test
    void aBoundThatIsNotAWholeHourIsRefusedNamingTheInstant() {
        assertThatThrownBy(() -> Pieces.of(new long[] {NOV_1, NOV_1 + HOUR + 60_000}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("2026-11-01T01:01:00Z is not a whole hour");
        assertThatThrownBy(() -> Pieces.of(new long[] {NOV_1 + 1, NOV_1 + HOUR}))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aWholeHourBeforeTheEpochIsAcceptedToo() {
        assertThat(Pieces.of(new long[] {-2 * HOUR, 0})).containsExactly(range(HOUR, -2 * HOUR, 0));
    }

    @Test
    void theRollupAnswersForCardsByAnythingButTheLease() {
        assertThat(LedgerRollupStore.keeps(LedgerEntryRow.DEVICE, List.of(Column.MODEL, Column.POOL, Column.STATE, Column.DEVICE)))
                .isTrue();
        assertThat(LedgerRollupStore.keeps(LedgerEntryRow.DEVICE, List.of(Column.MODEL, Column.LEASE))).isFalse();
    }

    @Test
    void theRollupAnswersForLeasesOnlyByTheColumnsItKeepsForThem() {
        assertThat(LedgerRollupStore.keeps(LedgerEntryRow.LEASE, List.of(Column.TENANT, Column.POOL, Column.MODEL, Column.KIND,
                Column.PRIORITY_CLASS, Column.FUNDING, Column.LENDER))).isTrue();
        assertThat(LedgerRollupStore.keeps(LedgerEntryRow.LEASE, List.of())).isTrue();
        assertThat(LedgerRollupStore.keeps(LedgerEntryRow.LEASE, List.of(Column.TENANT, Column.STATE))).isFalse();
        assertThat(LedgerRollupStore.keeps(LedgerEntryRow.LEASE, List.of(Column.DEVICE))).isFalse();
        assertThat(LedgerRollupStore.keeps(LedgerEntryRow.LEASE, List.of(Column.LEASE))).isFalse();
    }
}
