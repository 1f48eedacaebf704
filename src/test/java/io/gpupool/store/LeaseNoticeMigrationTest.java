package io.gpupool.store;

import io.gpupool.testing.DatabaseTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Migration V6 moves "why a lease is under notice" from the decision log onto the lease. A service
 * upgraded while leases are in their grace period must still hand their GPUs to the request they
 * were preempted for: the migration copies each such lease's last NOTICE entry onto it, and a
 * notice a lease got for its own request (a reclaim) names no preemptor.
 */
@DatabaseTest
class LeaseNoticeMigrationTest {
    private static final MigrationSchema SCHEMA = new MigrationSchema("v6_migration", "v6-migration");

    @AfterEach
    void dropSchema() throws SQLException {
        SCHEMA.drop();
    }

    @Test
    void leasesUnderNoticeAtTheUpgradeTakeTheirNoticeFromTheirLastNoticeEntry() throws SQLException {
        SCHEMA.flyway("5").migrate();
        try (Connection c = SCHEMA.connect(); Statement s = c.createStatement()) {
            s.execute("INSERT INTO tenant (id, name) VALUES ('t', 't')");
            s.execute("INSERT INTO pool (id, name, tier, placement_strategy, sharing_allowed) VALUES ('p', 'p', 'TRAINING', 'default', TRUE)");
            for (String[] lease : new String[][]{{"preempted", "own-1", "PREEMPTING"}, {"reclaimed", "own-2", "PREEMPTING"},
                    {"active", "own-3", "ACTIVE"}}) {
                s.execute("INSERT INTO lease (id, request_id, tenant_id, pool_id, kind, priority, preemptible, borrowed, state,"
                        + " created_at) VALUES ('" + lease[0] + "', '" + lease[1] + "', 't', 'p', 'TRAINING', 0, TRUE, FALSE, '"
                        + lease[2] + "', CURRENT_TIMESTAMP)");
            }
            // An older notice for someone else, then the one in force: the last entry counts.
            notice(s, "preempted", "older-request", "[\"Old rule\"]", "v1", "OLD");
            notice(s, "preempted", "waiting-request", "[\"Higher priority preempts lower priority within a pool\"]", "v2",
                    "LOWER_PRIORITY");
            notice(s, "reclaimed", "own-2", "[\"Idle borrowed lease is reclaimed\"]", "v2", "IDLE");
        }

        SCHEMA.flyway(null).migrate();

        Map<String, String[]> notices = new HashMap<>();
        try (Connection c = SCHEMA.connect(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery(
                    "SELECT id, notice_for, notice_rules, notice_policy_version, notice_reason FROM lease")) {
                while (rs.next()) {
                    notices.put(rs.getString(1), new String[]{rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5)});
                }
            }
        }
        assertThat(notices.get("preempted")).as("preempted for the waiting request, by the last notice's rule")
                .containsExactly("waiting-request", "[\"Higher priority preempts lower priority within a pool\"]", "v2",
                        "LOWER_PRIORITY");
        assertThat(notices.get("reclaimed")).as("a notice for its own request: reclaimed for no one")
                .containsExactly(null, "[\"Idle borrowed lease is reclaimed\"]", "v2", "IDLE");
        assertThat(notices.get("active")).as("never under notice").containsOnlyNulls();
    }

    private static void notice(Statement s, String lease, String request, String rules, String version, String reason)
            throws SQLException {
        s.execute("INSERT INTO decision_log (at, action, request_id, lease_id, tenant_id, rule_names, policy_version,"
                + " reason_code, message) VALUES (CURRENT_TIMESTAMP, 'NOTICE', '" + request + "', '" + lease + "', 't', '"
                + rules + "', '" + version + "', '" + reason + "', 'notice')");
    }
}
