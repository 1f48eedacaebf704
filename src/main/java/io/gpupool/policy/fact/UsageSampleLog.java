package io.gpupool.policy.fact;

import io.gpupool.domain.lease.UsageSample;

import java.time.Instant;
import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * One lease's usage samples as they arrive, oldest first, handed out as immutable lists that share
 * the log's arrays ({@link #samples()}). A caller that keeps each lease's last hour and hands it to
 * the facts at every sweep (the replay: ~120 samples a lease, every 30 s) copies nothing, and the
 * facts read the packed instants and values instead of visiting every sample object again
 * ({@link UsageHistory#of}). Appending never writes over a position a handed-out list holds (a full
 * array is copied, not shifted), and dropping the oldest only moves the start, so a list once handed
 * out never changes. Not thread-safe.
 */
public final class UsageSampleLog {
    private UsageSample[] samples = new UsageSample[8];
    private long[] seconds = new long[8];
    private int[] nanos = new int[8];
    private double[] values = new double[8];
    private int from;
    private int to;
    /** The source of every sample appended so far; null before the first and once two differ. */
    private UsageSample.Source source;
    private boolean mixed;
    /** Every sample appended so far was no older than the one before it. */
    private boolean ordered = true;

    public void append(UsageSample sample) {
        if (to == samples.length) {
            reallocate();
        }
        if (to > 0 && sample.at().isBefore(samples[to - 1].at())) {
            ordered = false;
        }
        if (!mixed && source != null && source != sample.source()) {
            mixed = true;
            source = null;
        } else if (!mixed) {
            source = sample.source();
        }
        samples[to] = sample;
        seconds[to] = sample.at().getEpochSecond();
        nanos[to] = sample.at().getNano();
        values[to] = sample.utilisation();
        to++;
    }

    /** Drops the oldest samples while they are older than {@code oldest} (in order of arrival). */
    public void dropBefore(Instant oldest) {
        while (from < to && samples[from].at().isBefore(oldest)) {
            from++;
        }
    }

    public boolean isEmpty() {
        return from == to;
    }

    /** The samples kept now, oldest first: a list that does not change when the log does. */
    public List<UsageSample> samples() {
        return new Run(samples, seconds, nanos, values, from, to, mixed ? null : source, ordered);
    }

    /**
     * New arrays (handed-out lists keep the old ones): the kept samples moved to the front, with room
     * for three times as many again, so a log that keeps a steady window (the replay's hour: ~120
     * samples) copies it once every ~360 appends rather than at every other turn of its arrays.
     */
    private void reallocate() {
        int kept = to - from;
        int capacity = Math.max(8, kept * 4);
        UsageSample[] s = new UsageSample[capacity];
        long[] sec = new long[capacity];
        int[] nan = new int[capacity];
        double[] val = new double[capacity];
        System.arraycopy(samples, from, s, 0, kept);
        System.arraycopy(seconds, from, sec, 0, kept);
        System.arraycopy(nanos, from, nan, 0, kept);
        System.arraycopy(values, from, val, 0, kept);
        samples = s;
        seconds = sec;
        nanos = nan;
        values = val;
        from = 0;
        to = kept;
    }

    /**
     * Samples {@code from} (inclusive) to {@code to} (exclusive) of a log's arrays, none of which is
     * ever written again: an immutable list with its instants and values packed alongside.
     * {@code source} is the one source of all of them (null: mixed or unknown); {@code ordered}: oldest first.
     */
    static final class Run extends AbstractList<UsageSample> implements RandomAccess {
        final UsageSample[] samples;
        final long[] seconds;
        final int[] nanos;
        final double[] values;
        final int from;
        final int to;
        final UsageSample.Source source;
        final boolean ordered;

        Run(UsageSample[] samples, long[] seconds, int[] nanos, double[] values, int from, int to,
            UsageSample.Source source, boolean ordered) {
            this.samples = samples;
            this.seconds = seconds;
            this.nanos = nanos;
            this.values = values;
            this.from = from;
            this.to = to;
            this.source = source;
            this.ordered = ordered;
        }

        @Override
        public UsageSample get(int index) {
            if (index < 0 || index >= to - from) {
                throw new IndexOutOfBoundsException("Index " + index + " out of bounds for length " + (to - from));
            }
            return samples[from + index];
        }

        @Override
        public int size() {
            return to - from;
        }
    }
}
