package io.gpupool.accounting;

import io.gpupool.problem.ProblemException;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A report's period [{@code from}, {@code to}) in whole UTC hours, cut into buckets at the step's
 * calendar boundaries (the first and last bucket may be partial). Whole hours because the ledger is
 * summed per hour in the database; prices change on whole hours too, so a priced hour has one rate.
 */
public record ReportWindow(Instant from, Instant to, Step step, List<Instant> starts, Instant until) {
    public ReportWindow {
        starts = List.copyOf(starts);
    }

    /** The instants a report or a price may name (the databases' timestamps hold them all). */
    static final Instant EARLIEST = Instant.parse("2000-01-01T00:00:00Z");
    static final Instant LATEST = Instant.parse("9999-12-31T00:00:00Z");

    /** The most buckets a report may have (a year of hours): keeps an answer's size bounded. */
    static final int MAX_BUCKETS = 8_784;

    /**
     * Parses and checks the query parameters; any problem is a 400 naming the parameter. {@code to}
     * defaults to the end of the current hour, {@code from} to a day before {@code to}, the step
     * to a day. A window may not reach further back than {@code retention} from {@code now}.
     */
    public static ReportWindow parse(String from, String to, String step, Instant now, Duration retention) {
        List<String> errors = new ArrayList<>();
        Step s = Step.DAY;
        if (step != null && !step.isBlank()) {
            try {
                s = Step.valueOf(step.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                errors.add("step: '" + excerpt(step) + "' is not one of hour, day, week, month");
            }
        }
        Instant end = to == null || to.isBlank() ? now.truncatedTo(ChronoUnit.HOURS).plus(1, ChronoUnit.HOURS)
                : instant("to", to, errors);
        Instant start = from == null || from.isBlank() ? (end == null ? null : end.minus(1, ChronoUnit.DAYS))
                : instant("from", from, errors);
        if (start != null && end != null) {
            if (!start.isBefore(end)) {
                errors.add("from: " + start + " is not before to " + end);
            } else if (start.isBefore(now.minus(retention))) {
                errors.add("from: " + start + " is beyond the retention of " + retention.toDays()
                        + " days (gpupool.accounting.retention): the earliest is " + now.minus(retention)
                        .truncatedTo(ChronoUnit.HOURS).plus(1, ChronoUnit.HOURS));
            }
        }
        if (!errors.isEmpty()) {
            throw ProblemException.invalid("The report's period is not valid: " + errors.get(0), errors);
        }
        ReportWindow window = of(start, end, s);
        return now.isBefore(end) ? window.until(now.isAfter(start) ? now : start) : window;
    }

    /**
     * The same window counted only up to {@code at} (the present, for a window that reaches into the
     * future): no lease or card is assumed to go on holding time that has not happened yet.
     */
    ReportWindow until(Instant at) {
        return new ReportWindow(from, to, step, starts, at);
    }

    public static ReportWindow of(Instant from, Instant to, Step step) {
        List<Instant> starts = new ArrayList<>();
        for (Instant t = from; t.isBefore(to); t = step.next(t)) {
            starts.add(t);
            if (starts.size() > MAX_BUCKETS) {
                String error = "step: " + step.label() + " cuts " + from + " to " + to + " into more than " + MAX_BUCKETS
                        + " buckets; use a longer step";
                throw ProblemException.invalid("The report's period is not valid: " + error, List.of(error));
            }
        }
        return new ReportWindow(from, to, step, starts, to);
    }

    /** The same window cut also at {@code instants} (inside it): pieces that each lie in one bucket. */
    ReportWindow cutAt(List<Instant> instants) {
        java.util.TreeSet<Instant> all = new java.util.TreeSet<>(starts);
        for (Instant t : instants) {
            if (t.isAfter(from) && t.isBefore(to)) {
                all.add(t);
            }
        }
        return new ReportWindow(from, to, step, new ArrayList<>(all), until);
    }

    private static Instant instant(String name, String value, List<String> errors) {
        try {
            Instant t = Instant.parse(value.trim());
            if (t.isBefore(EARLIEST) || t.isAfter(LATEST)) {
                errors.add(name + ": " + value.trim() + " is outside the years 2000 to 9999");
                return null;
            }
            if (!t.equals(t.truncatedTo(ChronoUnit.HOURS))) {
                errors.add(name + ": " + value.trim() + " is not a whole hour (reports count whole UTC hours)");
                return null;
            }
            return t;
        } catch (DateTimeParseException e) {
            errors.add(name + ": '" + excerpt(value) + "' is not an ISO-8601 instant such as 2026-12-01T00:00:00Z");
            return null;
        }
    }

    private static String excerpt(String value) {
        return io.gpupool.problem.FieldChecks.excerpt(value);
    }

    public int buckets() {
        return starts.size();
    }

    public Instant end(int bucket) {
        return bucket + 1 < starts.size() ? starts.get(bucket + 1) : to;
    }

    /** A bucket's end in milliseconds from {@code from}. */
    long endOffsetMs(int bucket) {
        return end(bucket).toEpochMilli() - from.toEpochMilli();
    }

    /** A bucket's counted end (its end, or {@code until} when that comes first) in milliseconds from {@code from}. */
    long countedEndOffsetMs(int bucket) {
        return Math.max(Math.min(end(bucket).toEpochMilli(), until.toEpochMilli()), starts.get(bucket).toEpochMilli())
                - from.toEpochMilli();
    }

    /** How much of a bucket is counted: all of it, or what lies before {@code until}. */
    long countedWidthMs(int bucket) {
        return countedEndOffsetMs(bucket) - (starts.get(bucket).toEpochMilli() - from.toEpochMilli());
    }

    /** The bucket that hour {@code hour} of the window (0-based) falls in. */
    int bucketOfHour(int hour) {
        long at = from.toEpochMilli() + hour * 3_600_000L;
        int lo = 0;
        int hi = starts.size() - 1;
        while (lo < hi) { // the last start at or before the hour
            int mid = (lo + hi + 1) >>> 1;
            if (starts.get(mid).toEpochMilli() <= at) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** The bucket an instant in the window falls in. */
    int bucketOf(long atMs) {
        return bucketOfHour((int) ((atMs - from.toEpochMilli()) / 3_600_000L));
    }
}
