package io.gpupool.store;

import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A transaction that does not wait for its WAL flush does so alone: the setting ends with it, so the
 * pooled connection's next transaction (a lease commit, say) waits for its flush again.
 */
@DatabaseTest
class DeferredFlushTest {

    @Test
    void onPostgresOnlyTheTransactionItIsAppliedToCommitsWithoutWaitingForItsFlush() throws SQLException {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            boolean applied = DeferredFlush.apply(c);
            if (!TestDatabase.isPostgres()) {
                assertThat(applied).as("H2 has no such setting: nothing is done").isFalse();
                c.rollback();
                return;
            }
            assertThat(applied).isTrue();
            assertThat(synchronousCommit(c)).isEqualTo("off");
            c.commit();
            assertThat(synchronousCommit(c)).as("the next transaction on the same connection").isEqualTo("on");
            c.rollback();
        }
    }

    private static String synchronousCommit(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW synchronous_commit")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static Connection connect() throws SQLException {
        return TestDatabase.isPostgres()
                ? DriverManager.getConnection(System.getProperty("datasources.default.url"),
                        System.getProperty("datasources.default.username", "postgres"), "")
                : DriverManager.getConnection("jdbc:h2:mem:deferred-flush;MODE=PostgreSQL", "sa", "");
    }
}
