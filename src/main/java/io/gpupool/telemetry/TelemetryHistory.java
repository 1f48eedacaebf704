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

    /**
     * The 5-minute slots starting in [{@code from}, {@code to}) (on the rollup grid), of
     * {@code devices} (null: every device), handed to {@code perDevice} one device at a time, ordered
     * by MIG profile, instance and slot: the rollups kept, and the raw samples not rolled up yet
     * summarised the same way the retention job will ({@link TelemetryRetention#ROLLUP_OF_RAW}), so a
     * slot reads the same before and after it is rolled up. A slot can come twice (samples that
     * arrived after their slot was rolled up); the reader combines them. Streamed: a month of a large
     * fleet is never held in memory at once.
     */
    public void slots(Instant from, Instant to, java.util.Collection<String> devices,
                      java.util.function.Consumer<List<SampleRollup>> perDevice) {
        String deviceFilter = devices == null ? "" : " AND device_id IN (" + String.join(", ",
                java.util.Collections.nCopies(devices.size(), "?")) + ")";
        if (devices != null && devices.isEmpty()) {
            return;
        }
        String columns = "device_id, mig_profile, gpu_instance_id, bucket_ms, metric, activity_avg, activity_max, "
                + "framebuffer_avg_mib, framebuffer_max_mib, sample_count";
        String sql = "SELECT " + columns + " FROM (SELECT " + columns + " FROM device_sample_rollup WHERE bucket_ms >= ? "
                + "AND bucket_ms < ?" + deviceFilter + " UNION ALL SELECT device_id, mig_profile, gpu_instance_id, bucket_ms, "
                + "metric, CAST(activity_avg AS REAL), activity_max, framebuffer_avg_mib, framebuffer_max_mib, sample_count "
                + "FROM (" + TelemetryRetention.ROLLUP_OF_RAW + ") r WHERE 1 = 1" + deviceFilter + ") s "
                + "ORDER BY device_id, mig_profile, gpu_instance_id, bucket_ms";
        tx.executeRead(status -> {
            try (PreparedStatement st = status.getConnection().prepareStatement(sql)) {
                int i = 1;
                for (int part = 0; part < 2; part++) {
                    st.setLong(i++, from.toEpochMilli());
                    st.setLong(i++, to.toEpochMilli());
                    if (devices != null) {
                        for (String d : devices) {
                            st.setString(i++, d);
                        }
                    }
                }
                st.setFetchSize(10_000);
                try (ResultSet rs = st.executeQuery()) {
                    List<SampleRollup> device = new ArrayList<>();
                    while (rs.next()) {
                        SampleRollup r = new SampleRollup(rs.getString(1), rs.getString(2), (Integer) rs.getObject(3),
                                Instant.ofEpochMilli(rs.getLong(4)), rs.getString(5), number(rs, 6), number(rs, 7),
                                (Integer) rs.getObject(8), (Integer) rs.getObject(9), rs.getInt(10));
                        if (!device.isEmpty() && !device.get(0).deviceId().equals(r.deviceId())) {
                            perDevice.accept(device);
                            device = new ArrayList<>();
                        }
                        device.add(r);
                    }
                    if (!device.isEmpty()) {
                        perDevice.accept(device);
                    }
                }
            } catch (SQLException e) {
                throw new IllegalStateException("device sample slots not read: " + e.getMessage(), e);
            }
            return null;
        });
    }

    private static Double number(ResultSet rs, int column) throws SQLException {
        float v = rs.getFloat(column);
        return rs.wasNull() ? null : SampleSeries.widened(v);
    }
}
