package io.gpupool.store;

import io.gpupool.testing.TestDatabase;
import org.flywaydb.core.Flyway;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A schema of its own for a migration test: migrated up to a version, filled as a database of that
 * version would be, then migrated the rest of the way. On the pass's database: PostgreSQL's test
 * database, or an in-memory H2 kept for the test's connections.
 */
final class MigrationSchema {
    private final String schema;
    private final String h2Name;

    MigrationSchema(String schema, String h2Name) {
        this.schema = schema;
        this.h2Name = h2Name;
    }

    /** Flyway on this schema, up to {@code target} (null: the latest). */
    Flyway flyway(String target) {
        var config = Flyway.configure().dataSource(url(), user(), "").schemas(schema).locations("classpath:db/migration");
        if (target != null) {
            config.target(target);
        }
        return config.load();
    }

    /** A connection whose statements work in this schema. */
    Connection connect() throws SQLException {
        Connection c = DriverManager.getConnection(url(), user(), "");
        try (Statement s = c.createStatement()) {
            s.execute(TestDatabase.isPostgres() ? "SET search_path TO " + schema : "SET SCHEMA " + schema);
        }
        return c;
    }

    void drop() throws SQLException {
        try (Connection c = DriverManager.getConnection(url(), user(), ""); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    private String url() {
        return TestDatabase.isPostgres() ? System.getProperty("datasources.default.url")
                : "jdbc:h2:mem:" + h2Name + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH";
    }

    private static String user() {
        return TestDatabase.isPostgres() ? System.getProperty("datasources.default.username", "postgres") : "sa";
    }
}
