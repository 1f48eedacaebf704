package io.gpupool.store;

import io.gpupool.testing.DatabaseTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Migration V19 stops storing lease entries: they move onto the lease rows they copied. A service
 * upgraded with a ledger half rolled up must read the same ledger afterwards, and its rollup worker
 * must add exactly the entries it had not added yet: an entry the cursor had passed becomes commit
 * sequence 0 (rolled up), one after it sequence 1 (pending). A lease whose entries an earlier
 * retention deleted (rolled up before they went) comes back, as rolled up. Device entries stay.
 */
@DatabaseTest
class LedgerFromLeaseRowsMigrationTest {
    private static final MigrationSchema SCHEMA = new MigrationSchema("v19_migration", "v19-migration");
    private static final long T0 = 1_800_000_000_000L; // 2027-01-15T08:00:00Z
    private static final long MINUTE = 60_000;

    @AfterEach
    void dropSchema() throws SQLException {
        SCHEMA.drop();
    }

    @Test
    void theLedgerReadsTheSameAfterTheUpgradeAndWhatWasNotRolledUpStaysPending() throws SQLException {
        SCHEMA.flyway("18").migrate();
        List<String> before;
        List<String> tailBefore;
        try (Connection c = SCHEMA.connect(); Statement s = c.createStatement()) {
            inventory(s);
            // Rolled up up to here: the cursor is set after these entries.
            lease(s, "held-rolled", "ACTIVE", 0, null);
            open(s, "held-rolled", "gpu-a", 500, "A100-SXM4-80GB-as-it-was", 0);
            lease(s, "ended-rolled", "RELEASED", 0, 30L);
            open(s, "ended-rolled", "gpu-a", 500, "A100-SXM4-80GB", 0);
            close(s, "ended-rolled", "gpu-a", 500, "A100-SXM4-80GB", 30, "RELEASED");
            lease(s, "ended-later", "EXPIRED", 1, 90L);
            open(s, "ended-later", "gpu-b", 1000, "A100-SXM4-80GB", 1);
            device(s, "gpu-b", 95, -1000, "HEALTHY");
            device(s, "gpu-b", 95, 1000, "UNHEALTHY");
            s.execute("UPDATE ledger_rollup_cursor SET last_entry_id = (SELECT MAX(id) FROM ledger_entry),"
                    + " pruned_before_ms = " + (T0 + 60 * MINUTE) + " WHERE id = 1");
            // Not rolled up yet.
            close(s, "ended-later", "gpu-b", 1000, "A100-SXM4-80GB", 90, "EXPIRED");
            lease(s, "held-pending", "ACTIVE", 100, null);
            open(s, "held-pending", "gpu-a", 250, "A100-SXM4-80GB", 100);
            // Its entries were deleted by the retention once rolled up (ended before pruned_before_ms).
            lease(s, "pruned", "RELEASED", 2, 20L);
            share(s, "pruned", "gpu-a", 250);
            // Ended before the ledger existed, with no end time: never in the ledger.
            lease(s, "before-the-ledger", "RELEASED", -500, null);
            share(s, "before-the-ledger", "gpu-b", 1000);
            before = entries(s, "SELECT " + LedgerSource.COLUMNS + " FROM ledger_entry");
            tailBefore = entries(s, "SELECT " + LedgerSource.COLUMNS + " FROM ledger_entry WHERE id > "
                    + LedgerSource.ENTRY_CURSOR);
        }

        SCHEMA.flyway(null).migrate();

        try (Connection c = SCHEMA.connect(); Statement s = c.createStatement()) {
            assertThat(count(s, "SELECT COUNT(*) FROM ledger_entry WHERE subject = 'LEASE'")).as("no lease entry stored").isZero();
            assertThat(count(s, "SELECT COUNT(*) FROM ledger_entry WHERE subject = 'DEVICE'")).isEqualTo(2);
            Map<String, String> seqs = new HashMap<>();
            try (ResultSet rs = s.executeQuery("SELECT id, opened_seq, closed_seq, ledger_seq FROM lease")) {
                while (rs.next()) {
                    seqs.put(rs.getString(1), rs.getString(2) + "/" + rs.getString(3) + "/" + rs.getString(4));
                }
            }
            assertThat(seqs).containsEntry("held-rolled", "0/null/0").containsEntry("ended-rolled", "0/0/0")
                    .containsEntry("ended-later", "0/1/1").containsEntry("held-pending", "1/null/1")
                    .containsEntry("pruned", "0/0/0").containsEntry("before-the-ledger", "null/null/null");
            assertThat(entries(s, "SELECT model FROM lease_share WHERE lease_id = 'held-rolled'"))
                    .as("the model the entry recorded, not the card's model now").containsExactly("A100-SXM4-80GB-as-it-was");

            List<String> after = entries(s, "SELECT " + LedgerSource.COLUMNS + " FROM " + LedgerSource.all() + " e");
            List<String> expected = new ArrayList<>(before);
            expected.add(row(T0 + 2 * MINUTE, 250, "gpu-a", "A100-SXM4-80GB", "pruned", "ACTIVE"));
            expected.add(row(T0 + 20 * MINUTE, -250, "gpu-a", "A100-SXM4-80GB", "pruned", "RELEASED"));
            assertThat(after).as("the same ledger, and the pruned lease's entries back").containsExactlyInAnyOrderElementsOf(expected);
            assertThat(entries(s, "SELECT " + LedgerSource.COLUMNS + " FROM " + LedgerSource.tail() + " e"))
                    .as("what the rollup worker still has to add").containsExactlyInAnyOrderElementsOf(tailBefore);
        }
    }

    private static void inventory(Statement s) throws SQLException {
        s.execute("INSERT INTO tenant (id, name) VALUES ('t', 't')");
        s.execute("INSERT INTO pool (id, name, tier, placement_strategy, sharing_allowed) VALUES ('p', 'p', 'TRAINING', 'default', TRUE)");
        s.execute("INSERT INTO site (id, name) VALUES ('s', 's')");
        s.execute("INSERT INTO cluster (id, site_id, name) VALUES ('c', 's', 'c')");
        s.execute("INSERT INTO node (id, cluster_id, site_id, cpu_milli, memory_mib, labels) VALUES ('n', 'c', 's', 0, 0, '{}')");
        int index = 0;
        for (String id : List.of("gpu-a", "gpu-b")) {
            s.execute("INSERT INTO device (id, uuid, node_id, cluster_id, site_id, device_index, model, memory_mib, numa_node,"
                    + " rdma, share_mode, mig_layout, health, labels, pool_id) VALUES ('" + id + "', 'GPU-" + id + "', 'n', 'c',"
                    + " 's', " + index++ + ", 'A100-SXM4-80GB', 81920, 0, FALSE, 'SHARED', '[]', 'HEALTHY', '{}', 'p')");
        }
    }

    private static void lease(Statement s, String id, String state, long startMinute, Long endMinute) throws SQLException {
        s.execute("INSERT INTO lease (id, request_id, tenant_id, pool_id, kind, priority, preemptible, borrowed, state,"
                + " created_at, priority_class, ended_at) VALUES ('" + id + "', 'r-" + id + "', 't', 'p', 'TRAINING', 0, TRUE,"
                + " FALSE, '" + state + "', " + time(T0 + startMinute * MINUTE) + ", 'standard', "
                + (endMinute == null ? "NULL" : time(T0 + endMinute * MINUTE)) + ")");
    }

    private static void share(Statement s, String lease, String device, int milli) throws SQLException {
        s.execute("INSERT INTO lease_share (lease_id, device_id, milli) VALUES ('" + lease + "', '" + device + "', " + milli + ")");
    }

    private static void open(Statement s, String lease, String device, int milli, String model, long minute) throws SQLException {
        share(s, lease, device, milli);
        entry(s, T0 + minute * MINUTE, milli, device, model, lease, "ACTIVE");
    }

    private static void close(Statement s, String lease, String device, int milli, String model, long minute, String state)
            throws SQLException {
        entry(s, T0 + minute * MINUTE, -milli, device, model, lease, state);
    }

    private static void entry(Statement s, long atMs, int milli, String device, String model, String lease, String state)
            throws SQLException {
        s.execute("INSERT INTO ledger_entry (at_ms, subject, delta_milli, device_id, model, pool_id, lease_id, tenant_id,"
                + " kind, priority_class, funding, state) VALUES (" + atMs + ", 'LEASE', " + milli + ", '" + device + "', '"
                + model + "', 'p', '" + lease + "', 't', 'TRAINING', 'standard', 'GUARANTEE', '" + state + "')");
    }

    private static void device(Statement s, String device, long minute, int milli, String health) throws SQLException {
        s.execute("INSERT INTO ledger_entry (at_ms, subject, delta_milli, device_id, model, pool_id, state) VALUES ("
                + (T0 + minute * MINUTE) + ", 'DEVICE', " + milli + ", '" + device + "', 'A100-SXM4-80GB', 'p', '" + health + "')");
    }

    private static String row(long atMs, int milli, String device, String model, String lease, String state) {
        return String.join("|", String.valueOf(atMs), "LEASE", String.valueOf(milli), device, model, "p", lease, "t",
                "TRAINING", "standard", "GUARANTEE", "null", state);
    }

    private static String time(long ms) {
        return "TIMESTAMP WITH TIME ZONE '" + java.time.Instant.ofEpochMilli(ms).toString().replace('T', ' ').replace("Z", "+00")
                + "'";
    }

    private static List<String> entries(Statement s, String sql) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (ResultSet rs = s.executeQuery(sql)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> values = new ArrayList<>();
                for (int i = 1; i <= columns; i++) {
                    values.add(String.valueOf(rs.getString(i)));
                }
                rows.add(String.join("|", values));
            }
        }
        return rows;
    }

    private static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
