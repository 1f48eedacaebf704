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
    public static final UsageHistory NONE = new UsageHistory(new long[0], new double[0]);

    /** Per sample, oldest first: seconds before the evaluation instant, and utilisation (0..1). */
    private final long[] ageSeconds;
    private final double[] utilisation;

    private UsageHistory(long[] ageSeconds, double[] utilisation) {
        this.ageSeconds = ageSeconds;
        this.utilisation = utilisation;
    }

    public static UsageHistory of(List<UsageSample> samples, Instant now) {
        if (samples.isEmpty()) {
            return NONE; // most leases, on the facts' hot path
        }
        if (!(samples instanceof java.util.RandomAccess)) {
            samples = new ArrayList<>(samples); // read by index below
        }
        if (inOrderUpTo(samples, now)) {
            // Oldest first and none after the instant, as a caller keeping them per lease hands them
            // (the replay at every sweep): the order a stable sort would give, without copy or sort.
            long[] ages = new long[samples.size()];
            double[] values = new double[ages.length];
            for (int i = 0; i < ages.length; i++) {
                UsageSample s = samples.get(i);
                ages[i] = SnapshotFacts.secondsBetween(s.at(), now);
                values[i] = s.utilisation();
            }
            return new UsageHistory(ages, values);
        }
        List<UsageSample> seen = new ArrayList<>(samples.size());
        for (UsageSample s : samples) {
            if (!s.at().isAfter(now)) {
                seen.add(s);
            }
        }
        if (seen.isEmpty()) {
            return NONE;
        }
        seen.sort(Comparator.comparing(UsageSample::at));
        long[] ages = new long[seen.size()];
        double[] values = new double[seen.size()];
        for (int i = 0; i < ages.length; i++) {
            ages[i] = SnapshotFacts.secondsBetween(seen.get(i).at(), now);
            values[i] = seen.get(i).utilisation();
        }
        return new UsageHistory(ages, values);
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

    /** Age of the newest sample in seconds; −1 without samples. */
    public long newestAgeSeconds() {
        return ageSeconds.length == 0 ? -1 : ageSeconds[ageSeconds.length - 1];
    }

    public boolean isEmpty() {
        return ageSeconds.length == 0;
    }

    /**
     * How long every sample has stayed below {@code threshold}: the age of the newest sample at or
     * above it, or of the oldest sample when none is (idle at least that long); 0 while the newest
     * sample is at or above it, and 0 without samples (nothing says the lease is idle).
     */
    public long idleSecondsBelow(double threshold) {
        for (int i = ageSeconds.length - 1; i >= 0; i--) {
            if (utilisation[i] >= threshold) {
                return i == ageSeconds.length - 1 ? 0 : ageSeconds[i];
            }
        }
        return ageSeconds.length == 0 ? 0 : ageSeconds[0];
    }

    /** Mean utilisation of the samples of the last {@code seconds}; −1 when there are none. */
    public double meanOver(long seconds) {
        double sum = 0;
        int n = 0;
        for (int i = ageSeconds.length - 1; i >= 0 && ageSeconds[i] <= seconds; i--) {
            sum += utilisation[i];
            n++;
        }
        return n == 0 ? -1.0 : sum / n;
    }
}
