package io.gpupool.accounting;

import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;
import io.gpupool.store.LedgerRollupStore;
import io.gpupool.store.LedgerRollupWriter;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps the ledger's rollups (docs/reports.md, "Rollups"). Derived after the commit, not in it: the
 * lease path pays nothing (its transaction writes the ledger entries and nothing else), and one
 * worker adds many batches' entries in one statement every {@code gpupool.accounting.rollup.interval}.
 * A cursor names the last entry added and moves in the same transaction as the sums, so a crash
 * neither loses nor doubles an entry; reports read the entries after the cursor raw, so they are
 * exact however far behind the worker is. The ledger is written by the one writer, one transaction
 * at a time, so its ids become visible in order and the cursor never passes an entry not yet
 * committed (the webhook outbox relies on the same for the decision log).
 *
 * <p>Also rebuilds a range of days from the ledger and checks one against it (admin), and, when
 * {@code gpupool.accounting.ledger-retention} is set, deletes raw entries of leases that ended
 * before it once rolled up. Every write runs on this object's lock, one at a time.
 */
@Context
public class LedgerRollups {
    /** A rebuild's outcome: rollup rows deleted and written for the days [from, to). */
    public record Rebuild(Instant from, Instant to, long cursor, long deletedRows, long writtenRows) {
    }

    /** A check's outcome: {@code intact} when the stored rows equal the ledger's sums for [from, to). */
    public record Check(Instant from, Instant to, long cursor, boolean intact, long storedRows, long rebuiltRows,
                        long differences, List<LedgerRollupWriter.Difference> firstDifferences) {
    }

    static final Duration MAX_RANGE = Duration.ofDays(400);
    private static final Logger LOG = LoggerFactory.getLogger(LedgerRollups.class);

    private final LedgerRollupWriter writer;
    private final Clock clock;
    private final boolean enabled;
    private final Duration interval;
    private final int batch;
    private final Duration ledgerRetention;
    private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "gpupool-ledger-rollup");
        t.setDaemon(true);
        return t;
    });

    LedgerRollups(LedgerRollupWriter writer, Clock clock,
                  @Value("${gpupool.accounting.rollup.enabled:true}") boolean enabled,
                  @Value("${gpupool.accounting.rollup.interval:1s}") Duration interval,
                  @Value("${gpupool.accounting.rollup.batch:100000}") int batch,
                  @Nullable @Value("${gpupool.accounting.ledger-retention:}") String ledgerRetention) {
        this.writer = writer;
        this.clock = clock;
        this.enabled = enabled;
        this.interval = interval;
        this.batch = batch;
        this.ledgerRetention = retention(ledgerRetention);
        if (batch < 1 || interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("gpupool.accounting.rollup: batch must be at least 1 and interval positive");
        }
    }

    /** {@code keep} (or nothing): raw entries are never deleted; else a duration such as {@code 400d}. */
    static Duration retention(String value) {
        if (value == null || value.isBlank() || value.trim().equalsIgnoreCase("keep")) {
            return null;
        }
        Duration d = io.micronaut.core.convert.ConversionService.SHARED.convert(value.trim(), Duration.class)
                .orElseThrow(() -> new IllegalArgumentException("gpupool.accounting.ledger-retention: '" + value
                        + "' is not keep or a duration such as 400d"));
        if (d.compareTo(Duration.ofDays(1)) < 0) {
            throw new IllegalArgumentException("gpupool.accounting.ledger-retention: " + value + " is under a day");
        }
        return d;
    }

    @PostConstruct
    void start() {
        if (enabled) {
            worker.scheduleWithFixedDelay(this::runQuietly, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void runQuietly() {
        try {
            catchUp();
        } catch (RuntimeException e) {
            // The cursor did not move: the next run adds the same entries.
            LOG.warn("Rolling up the ledger failed; retried in {}: {}", interval, e.getMessage());
        }
    }

    /** Adds every entry written so far to the rollups, then deletes what the retention lets go; returns ids passed. */
    public synchronized long catchUp() {
        long passed = 0;
        long step;
        do {
            step = writer.advance(batch);
            passed += step;
        } while (step > 0);
        pruneIfDue();
        return passed;
    }

    /** With a ledger retention: deletes lease entries of leases ended before the retention's day, once rolled up. */
    synchronized void pruneIfDue() {
        if (ledgerRetention == null) {
            return;
        }
        long horizon = Math.floorDiv(clock.instant().minus(ledgerRetention).toEpochMilli(), LedgerRollupStore.DAY_MS)
                * LedgerRollupStore.DAY_MS;
        Long pruned = writer.prunedBefore();
        if (pruned == null || pruned < horizon) {
            long deleted = writer.prune(horizon);
            if (deleted > 0) {
                LOG.info("Deleted {} raw ledger entries of leases ended before {} (gpupool.accounting.ledger-retention {})",
                        deleted, Instant.ofEpochMilli(horizon), ledgerRetention);
            }
        }
    }

    /** 400 when {@code at} lies before the raw ledger kept (reports and rebuilds cannot be exact there). */
    void requireKept(String parameter, Instant at) {
        Long pruned = writer.prunedBefore();
        if (pruned != null && at.toEpochMilli() < pruned) {
            throw ProblemException.invalid("The period is not valid: " + parameter + ": " + at
                    + " is before the raw ledger kept", List.of(parameter + ": " + at + " is before "
                    + Instant.ofEpochMilli(pruned) + ", the oldest raw ledger entries kept (gpupool.accounting"
                    + ".ledger-retention " + (ledgerRetention == null ? "keep, after an earlier setting" : ledgerRetention.toDays()
                    + " days") + ")"));
        }
    }

    /** Deletes and sums again the rollups of the days [from, to) from the ledger (400 for a bad range). */
    public synchronized Rebuild rebuild(String from, String to) {
        Instant[] range = range(from, to);
        catchUpQuietly();
        long[] counts = writer.rebuild(range[0].toEpochMilli(), range[1].toEpochMilli());
        return new Rebuild(range[0], range[1], writer.cursor(), counts[0], counts[1]);
    }

    /** The stored rollups of the days [from, to) against the same sums taken from the ledger now. */
    public synchronized Check check(String from, String to) {
        Instant[] range = range(from, to);
        LedgerRollupWriter.Comparison c = writer.compare(range[0].toEpochMilli(), range[1].toEpochMilli());
        return new Check(range[0], range[1], writer.cursor(), c.differences() == 0, c.storedRows(), c.rebuiltRows(),
                c.differences(), c.first());
    }

    private void catchUpQuietly() {
        long step;
        do {
            step = writer.advance(batch);
        } while (step > 0);
    }

    /** Whole UTC days, {@code from} before {@code to}, at most 400 days, not before the raw ledger kept. */
    private Instant[] range(String from, String to) {
        FieldChecks check = new FieldChecks();
        Instant start = day(check, "from", from);
        Instant end = day(check, "to", to);
        if (start != null && end != null) {
            if (!start.isBefore(end)) {
                check.error("from: " + start + " is not before to " + end);
            } else if (Duration.between(start, end).compareTo(MAX_RANGE) > 0) {
                check.error("to: " + end + " is more than " + MAX_RANGE.toDays() + " days after from " + start);
            }
        }
        check.throwIfAny("The rollup range is not valid");
        requireKept("from", start);
        return new Instant[] {start, end};
    }

    private static Instant day(FieldChecks check, String name, String value) {
        if (!check.text(name, value)) {
            return null;
        }
        try {
            Instant t = Instant.parse(value.trim());
            if (t.isBefore(ReportWindow.EARLIEST) || t.isAfter(ReportWindow.LATEST)) {
                check.error(name + ": " + t + " is outside the years 2000 to 9999");
                return null;
            }
            if (t.toEpochMilli() % LedgerRollupStore.DAY_MS != 0) {
                check.error(name + ": " + t + " is not a whole UTC day (the rollups keep whole days)");
                return null;
            }
            return t;
        } catch (DateTimeParseException e) {
            check.error(name + ": '" + FieldChecks.excerpt(value) + "' is not an ISO-8601 instant such as 2027-01-01T00:00:00Z");
            return null;
        }
    }

    @PreDestroy
    void stop() throws InterruptedException {
        worker.shutdown();
        if (!worker.awaitTermination(30, TimeUnit.SECONDS)) {
            worker.shutdownNow();
        }
    }
}
