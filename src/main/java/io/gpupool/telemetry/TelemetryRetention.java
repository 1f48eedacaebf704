package io.gpupool.telemetry;

import io.gpupool.store.WriterLock;
import io.micronaut.scheduling.annotation.Scheduled;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;

/**
 * Keeps the telemetry tables at their configured size (docs/inventory-sources.md, "Telemetry
 * retention"): raw samples older than the raw window become 5-minute rollups (average, maximum and
 * count per device, MIG instance and metric) and are deleted in the same transaction, so a sample
 * is always in exactly one of the two tables; rollups older than their period are deleted. Each
 * step handles one slice of {@link TelemetrySettings#retentionBatch()} (bucket-aligned, so a bucket
 * is never split between steps): a transaction stays bounded however far behind the job is, and a
 * run does at most {@link #STEPS_PER_RUN} of them.
 */
@Singleton
public class TelemetryRetention {
    private static final Logger LOG = LoggerFactory.getLogger(TelemetryRetention.class);
    static final int STEPS_PER_RUN = 16;
    private static final long BUCKET_MS = TelemetrySettings.BUCKET.toMillis();
    private static final String BUCKET = "(at_ms / " + BUCKET_MS + ") * " + BUCKET_MS;
    /**
     * The rollup rows of the raw samples in [?, ?), stated once: what this job writes into
     * {@code device_sample_rollup}, and what the utilisation report reads of the samples not rolled up
     * yet ({@link TelemetryHistory#slots}), so a 5-minute slot reads the same before and after.
     */
    static final String ROLLUP_OF_RAW = "SELECT device_id, gpu_instance_id, mig_profile, " + BUCKET + " AS bucket_ms, "
            + "metric, AVG(activity) AS activity_avg, MAX(activity) AS activity_max, "
            + "CAST(AVG(framebuffer_used_mib) AS INTEGER) AS framebuffer_avg_mib, "
            + "MAX(framebuffer_used_mib) AS framebuffer_max_mib, COUNT(*) AS sample_count "
            + "FROM device_sample WHERE at_ms >= ? AND at_ms < ? "
            + "GROUP BY device_id, gpu_instance_id, mig_profile, " + BUCKET + ", metric";

    /** What one run did. */
    public record Outcome(int rawRolledUp, int rollupsWritten, int rollupsDeleted, boolean caughtUp) {
    }

    private final TransactionOperations<Connection> tx;
    private final WriterLock writerLock;
    private final TelemetrySettings settings;
    private final Clock clock;

    TelemetryRetention(TransactionOperations<Connection> tx, WriterLock writerLock, TelemetrySettings settings, Clock clock) {
        this.tx = tx;
        this.writerLock = writerLock;
        this.settings = settings;
        this.clock = clock;
    }

    @Scheduled(fixedDelay = "${gpupool.telemetry.retention-check:1m}", initialDelay = "${gpupool.telemetry.retention-check:1m}")
    void tick() {
        try {
            run();
        } catch (RuntimeException e) {
            LOG.warn("Telemetry retention step failed; the next run retries: {}", e.toString());
        }
    }

    /** Rolls up and deletes what left its window, at most {@link #STEPS_PER_RUN} slices. */
    public Outcome run() {
        Instant now = clock.instant();
        long rawCutoff = floorToBucket(now.minus(settings.rawRetention()).toEpochMilli());
        long rollupCutoff = floorToBucket(now.minus(settings.rollupRetention()).toEpochMilli());
        int rolled = 0;
        int written = 0;
        int deleted = 0;
        boolean caughtUp = false;
        for (int step = 0; step < STEPS_PER_RUN && !caughtUp; step++) {
            writerLock.ensureHeld();
            long[] r = tx.executeWrite(status -> {
                Connection c = status.getConnection();
                writerLock.confirm(c);
                try {
                    long[] raw = rollUpOneSlice(c, rawCutoff);
                    long[] gone = deleteOneSliceOfRollups(c, rollupCutoff);
                    return new long[]{raw[0], raw[1], gone[0], raw[2] == 0 && gone[1] == 0 ? 1 : 0};
                } catch (SQLException e) {
                    throw new IllegalStateException("telemetry retention: " + e.getMessage(), e);
                }
            });
            rolled += (int) r[0];
            written += (int) r[1];
            deleted += (int) r[2];
            caughtUp = r[3] == 1;
        }
        return new Outcome(rolled, written, deleted, caughtUp);
    }

    /** {raw rows rolled up, rollup rows written, slices done (0: nothing left)}. */
    private long[] rollUpOneSlice(Connection c, long cutoff) throws SQLException {
        Long oldest = oldest(c, "SELECT MIN(at_ms) FROM device_sample WHERE at_ms < ?", cutoff);
        if (oldest == null) {
            return new long[]{0, 0, 0};
        }
        long from = floorToBucket(oldest);
        long to = Math.min(cutoff, from + settings.retentionBatch().toMillis());
        int written;
        try (PreparedStatement st = c.prepareStatement("INSERT INTO device_sample_rollup (device_id, gpu_instance_id, "
                + "mig_profile, bucket_ms, metric, activity_avg, activity_max, framebuffer_avg_mib, framebuffer_max_mib, "
                + "sample_count) " + ROLLUP_OF_RAW)) {
            st.setLong(1, from);
            st.setLong(2, to);
            written = st.executeUpdate();
        }
        int rolled;
        try (PreparedStatement st = c.prepareStatement("DELETE FROM device_sample WHERE at_ms >= ? AND at_ms < ?")) {
            st.setLong(1, from);
            st.setLong(2, to);
            rolled = st.executeUpdate();
        }
        return new long[]{rolled, written, 1};
    }

    /** {rollup rows deleted, slices done (0: nothing left)}. */
    private long[] deleteOneSliceOfRollups(Connection c, long cutoff) throws SQLException {
        Long oldest = oldest(c, "SELECT MIN(bucket_ms) FROM device_sample_rollup WHERE bucket_ms < ?", cutoff);
        if (oldest == null) {
            return new long[]{0, 0};
        }
        try (PreparedStatement st = c.prepareStatement("DELETE FROM device_sample_rollup WHERE bucket_ms >= ? AND bucket_ms < ?")) {
            st.setLong(1, oldest);
            st.setLong(2, Math.min(cutoff, oldest + settings.retentionBatch().toMillis()));
            return new long[]{st.executeUpdate(), 1};
        }
    }

    private static Long oldest(Connection c, String sql, long cutoff) throws SQLException {
        try (PreparedStatement st = c.prepareStatement(sql)) {
            st.setLong(1, cutoff);
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                long v = rs.getLong(1);
                return rs.wasNull() ? null : v;
            }
        }
    }

    static long floorToBucket(long epochMs) {
        return Math.floorDiv(epochMs, BUCKET_MS) * BUCKET_MS;
    }
}
