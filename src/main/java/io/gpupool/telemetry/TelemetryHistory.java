package io.gpupool.telemetry;

import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Reads the kept samples back: the raw window at start (DeviceTelemetry) and ranges for reports. */
@Singleton
public class TelemetryHistory {
    private final TransactionOperations<Connection> tx;

    TelemetryHistory(TransactionOperations<Connection> tx) {
        this.tx = tx;
    }

    /** The raw samples taken at or after {@code from}, oldest first. */
    public List<ActivitySample> since(Instant from) {
        return between(from, Instant.ofEpochMilli(Long.MAX_VALUE));
    }

    /** The raw samples taken in [from, to), oldest first. */
    public List<ActivitySample> between(Instant from, Instant to) {
        return tx.executeRead(status -> {
            List<ActivitySample> out = new ArrayList<>();
            try (PreparedStatement st = status.getConnection().prepareStatement(
                    "SELECT device_id, mig_profile, gpu_instance_id, at_ms, metric, activity, framebuffer_used_mib "
                            + "FROM device_sample WHERE at_ms >= ? AND at_ms < ? ORDER BY at_ms")) {
                st.setLong(1, from.toEpochMilli());
                st.setLong(2, to.toEpochMilli());
                st.setFetchSize(10_000);
                try (ResultSet rs = st.executeQuery()) {
                    while (rs.next()) {
                        out.add(new ActivitySample(rs.getString(1), rs.getString(2), (Integer) rs.getObject(3),
                                Instant.ofEpochMilli(rs.getLong(4)), rs.getString(5), number(rs, 6),
                                rs.getObject(7) == null ? null : rs.getLong(7), "agent"));
                    }
                }
            } catch (SQLException e) {
                throw new IllegalStateException("device samples not read: " + e.getMessage(), e);
            }
            return out;
        });
    }

    /** The rollups whose bucket starts in [from, to), oldest first. */
    public List<SampleRollup> rollups(Instant from, Instant to) {
        return tx.executeRead(status -> {
            List<SampleRollup> out = new ArrayList<>();
            try (PreparedStatement st = status.getConnection().prepareStatement(
                    "SELECT device_id, mig_profile, gpu_instance_id, bucket_ms, metric, activity_avg, activity_max, "
                            + "framebuffer_avg_mib, framebuffer_max_mib, sample_count FROM device_sample_rollup "
                            + "WHERE bucket_ms >= ? AND bucket_ms < ? ORDER BY bucket_ms, device_id, gpu_instance_id")) {
                st.setLong(1, from.toEpochMilli());
                st.setLong(2, to.toEpochMilli());
                st.setFetchSize(10_000);
                try (ResultSet rs = st.executeQuery()) {
                    while (rs.next()) {
                        out.add(new SampleRollup(rs.getString(1), rs.getString(2), (Integer) rs.getObject(3),
                                Instant.ofEpochMilli(rs.getLong(4)), rs.getString(5), number(rs, 6), number(rs, 7),
                                (Integer) rs.getObject(8), (Integer) rs.getObject(9), rs.getInt(10)));
                    }
                }
            } catch (SQLException e) {
                throw new IllegalStateException("device sample rollups not read: " + e.getMessage(), e);
            }
            return out;
        });
    }

    private static Double number(ResultSet rs, int column) throws SQLException {
        float v = rs.getFloat(column);
        return rs.wasNull() ? null : SampleSeries.widened(v);
    }
}
