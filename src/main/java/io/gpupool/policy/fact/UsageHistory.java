package io.gpupool.policy.fact;

import io.gpupool.domain.lease.UsageSample;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A lease's usage samples as seen at the evaluation instant, so a rule can choose its own idle
 * threshold and window instead of the service's: {@code idleSecondsBelow(0.10) >= 1800} reads
 * "under 10 % for the last half hour". Samples stamped after the evaluation instant are left out.
 */
public final class UsageHistory {
    public static final UsageHistory NONE = new UsageHistory(new long[0], new int[0], new double[0], 0, 0, Instant.EPOCH);

    /**
     * Samples {@code from} (inclusive) to {@code to} (exclusive), oldest first, none after the
     * evaluation instant: their instants (epoch second and nanosecond) and utilisation (0..1). The
     * arrays may be a {@link UsageSampleLog}'s, shared and never written again; ages are counted
     * from them as {@link SnapshotFacts#secondsBetween} counts (whole seconds, rounded down).
     */
    private final long[] seconds;
    private final int[] nanos;
    private final double[] utilisation;
    private final int from;
    private final int to;
    private final long nowSecond;
    private final int nowNano;

    private UsageHistory(long[] seconds, int[] nanos, double[] utilisation, int from, int to, Instant now) {
        this.seconds = seconds;
        this.nanos = nanos;
        this.utilisation = utilisation;
        this.from = from;
        this.to = to;
        this.nowSecond = now.getEpochSecond();
        this.nowNano = now.getNano();
    }

    public static UsageHistory of(List<UsageSample> samples, Instant now) {
        if (samples.isEmpty()) {
            return NONE; // most leases, on the facts' hot path
        }
        if (samples instanceof UsageSampleLog.Run run && run.ordered) {
            // A log's samples, oldest first: those up to the instant are a prefix, read where they lie.
            int to = run.to;
            while (to > run.from && (run.seconds[to - 1] > now.getEpochSecond()
                    || run.seconds[to - 1] == now.getEpochSecond() && run.nanos[to - 1] > now.getNano())) {
                to--;
            }
            return to == run.from ? NONE : new UsageHistory(run.seconds, run.nanos, run.values, run.from, to, now);
        }
        if (!(samples instanceof java.util.RandomAccess)) {
            samples = new ArrayList<>(samples); // read by index below
        }
        List<UsageSample> seen = samples;
        if (!inOrderUpTo(samples, now)) {
            seen = new ArrayList<>(samples.size());
            for (UsageSample s : samples) {
                if (!s.at().isAfter(now)) {
                    seen.add(s);
                }
            }
            if (seen.isEmpty()) {
                return NONE;
            }
            seen.sort(Comparator.comparing(UsageSample::at)); // stable: samples at one instant keep their order
        }
        // else oldest first and none after the instant, as a caller keeping them per lease hands
        // them: the order a stable sort would give, without copy or sort.
        int n = seen.size();
        long[] seconds = new long[n];
        int[] nanos = new int[n];
        double[] values = new double[n];
        for (int i = 0; i < n; i++) {
            UsageSample s = seen.get(i);
            seconds[i] = s.at().getEpochSecond();
            nanos[i] = s.at().getNano();
            values[i] = s.utilisation();
        }
        return new UsageHistory(seconds, nanos, values, 0, n, now);
    }

    private static boolean inOrderUpTo(List<UsageSample> samples, Instant now) {
        Instant previous = null;
        for (int i = 0, n = samples.size(); i < n; i++) {
            Instant at = samples.get(i).at();
            if (at.isAfter(now) || previous != null && at.isBefore(previous)) {
                return false;
            }
            previous = at;
        }
        return true;
    }

    /** Seconds from sample {@code i} to the evaluation instant, as {@link SnapshotFacts#secondsBetween}. */
    private long ageSeconds(int i) {
        long age = nowSecond - seconds[i];
        return nowNano < nanos[i] ? age - 1 : age;
    }

    /** Age of the newest sample in seconds; −1 without samples. */
    public long newestAgeSeconds() {
        return to == from ? -1 : ageSeconds(to - 1);
    }

    public boolean isEmpty() {
        return to == from;
    }

    /**
     * How long every sample has stayed below {@code threshold}: the age of the newest sample at or
     * above it, or of the oldest sample when none is (idle at least that long); 0 while the newest
     * sample is at or above it, and 0 without samples (nothing says the lease is idle).
     */
    public long idleSecondsBelow(double threshold) {
        for (int i = to - 1; i >= from; i--) {
            if (utilisation[i] >= threshold) {
                return i == to - 1 ? 0 : ageSeconds(i);
            }
        }
        return to == from ? 0 : ageSeconds(from);
    }

    /** Mean utilisation of the samples of the last {@code seconds}; −1 when there are none. */
    public double meanOver(long seconds) {
        double sum = 0;
        int n = 0;
        for (int i = to - 1; i >= from && ageSeconds(i) <= seconds; i--) {
            sum += utilisation[i];
            n++;
        }
        return n == 0 ? -1.0 : sum / n;
    }
}
