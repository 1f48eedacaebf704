package io.gpupool.testing;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.flyway.DataSourceMigrationRunner;
import io.micronaut.flyway.FlywayConfigurationProperties;
import io.micronaut.inject.qualifiers.Qualifiers;
import io.micronaut.jdbc.DataSourceResolver;
import jakarta.inject.Singleton;
import org.flywaydb.core.Flyway;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tests' Flyway runner. Every test context asks for an empty schema ({@code clean-schema: true}),
 * and Flyway's clean drops every object and migrate rebuilds them, one DDL transaction per
 * migration: about two seconds a context on PostgreSQL, and a test class with
 * {@code rebuildContext = true} starts one per test. The schema a clean migrate gives is the same
 * every time, so after the first one in this JVM this runner empties the tables instead
 * (TRUNCATE, identities restarted) and puts back the rows the migrations themselves wrote (the
 * fence, the cursors). It checks first that the schema history is the one it migrated; anything
 * else (another migration set, a test that migrated to an older target, a new database) gets
 * Flyway's clean and migrate as before. {@code -Dgpupool.test.fast-reset=false} turns it off.
 * Production startup is untouched: this bean exists only on the test classpath.
 */
@Singleton
@Replaces(DataSourceMigrationRunner.class)
final class ResettingMigrationRunner implements BeanCreatedEventListener<DataSource> {
    private static final String HISTORY = "flyway_schema_history";
    /** Per JDBC URL and user: the schema history and the rows a clean migrate left there. */
    private static final Map<String, Baseline> BASELINES = new ConcurrentHashMap<>();

    private final ApplicationContext context;
    private final DataSourceResolver resolver;

    ResettingMigrationRunner(ApplicationContext context, DataSourceResolver resolver) {
        this.context = context;
        this.resolver = resolver;
    }

    @Override
    public DataSource onCreated(BeanCreatedEvent<DataSource> event) {
        DataSource dataSource = event.getBean();
        // The bean may be the transaction-aware proxy, whose connections need beans that need this one.
        DataSource target = resolver.resolve(dataSource);
        String name = event.getBeanIdentifier().getName();
        context.findBean(FlywayConfigurationProperties.class, Qualifiers.byName(name))
                .filter(FlywayConfigurationProperties::isEnabled)
                .ifPresent(config -> migrate(config, target));
        return dataSource;
    }

    private static void migrate(FlywayConfigurationProperties config, DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            String key = c.getMetaData().getURL() + "|" + c.getMetaData().getUserName();
            Baseline known = BASELINES.get(key);
            if (config.isCleanSchema() && known != null && fastResetWanted() && known.history.equals(history(c))) {
                try {
                    known.restore(c);
                    return;
                } catch (SQLException e) {
                    // For example a user that may not turn foreign-key checks off: clean and migrate instead.
                    BASELINES.remove(key);
                }
            }
            Flyway flyway = config.getFluentConfiguration().dataSource(dataSource).load();
            if (config.isCleanSchema()) {
                flyway.clean();
            }
            flyway.migrate();
            if (config.isCleanSchema()) {
                BASELINES.put(key, Baseline.capture(c));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Preparing the test schema failed: " + e.getMessage(), e);
        }
    }

    private static boolean fastResetWanted() {
        return !"false".equals(System.getProperty("gpupool.test.fast-reset"));
    }

    /** The applied migrations, in order: version, checksum and success of each. */
    private static String history(Connection c) throws SQLException {
        StringBuilder h = new StringBuilder();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT version, checksum, success FROM " + HISTORY + " ORDER BY installed_rank")) {
            while (rs.next()) {
                h.append(rs.getString(1)).append(':').append(rs.getObject(2)).append(':').append(rs.getBoolean(3)).append(';');
            }
        } catch (SQLException noHistory) {
            return "none";
        }
        return h.toString();
    }

    /** A freshly migrated schema: its history, its tables and the rows the migrations wrote. */
    private record Baseline(String history, List<String> tables, List<String> sequences, List<Rows> rows) {
        static Baseline capture(Connection c) throws SQLException {
            List<String> tables = tables(c);
            List<Rows> rows = new ArrayList<>();
            for (String table : tables) {
                Rows r = Rows.of(c, table);
                if (!r.values.isEmpty()) {
                    rows.add(r);
                }
            }
            return new Baseline(ResettingMigrationRunner.history(c), List.copyOf(tables), sequences(c), List.copyOf(rows));
        }

        void restore(Connection c) throws SQLException {
            boolean postgres = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT).contains("postgres");
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                if (postgres) {
                    // DELETE, not TRUNCATE: the tables hold a test's few rows, and TRUNCATE gives each of the
                    // 30-odd tables a new file (about twice the time here). Foreign keys are not checked
                    // while replicating, so the order does not matter; identities restart as after clean.
                    s.execute("SET LOCAL session_replication_role = replica");
                    for (String table : tables) {
                        s.execute("DELETE FROM " + table);
                    }
                    for (String sequence : sequences) {
                        s.execute("ALTER SEQUENCE " + sequence + " RESTART");
                    }
                } else {
                    s.execute("SET REFERENTIAL_INTEGRITY FALSE");
                    for (String table : tables) {
                        s.execute("TRUNCATE TABLE " + table + " RESTART IDENTITY");
                    }
                    s.execute("SET REFERENTIAL_INTEGRITY TRUE");
                }
                for (Rows r : rows) {
                    r.insert(c);
                }
                c.commit();
            } catch (SQLException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        }

        /** PostgreSQL's sequences in this schema (the identity columns'); H2 restarts them with TRUNCATE. */
        private static List<String> sequences(Connection c) throws SQLException {
            List<String> sequences = new ArrayList<>();
            if (!c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT).contains("postgres")) {
                return sequences;
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                    "SELECT sequencename FROM pg_sequences WHERE schemaname = current_schema()")) {
                while (rs.next()) {
                    sequences.add(rs.getString(1));
                }
            }
            return List.copyOf(sequences);
        }

        private static List<String> tables(Connection c) throws SQLException {
            List<String> tables = new ArrayList<>();
            DatabaseMetaData meta = c.getMetaData();
            try (ResultSet rs = meta.getTables(null, c.getSchema(), "%", new String[]{"TABLE"})) {
                while (rs.next()) {
                    String table = rs.getString("TABLE_NAME");
                    if (!table.equalsIgnoreCase(HISTORY)) {
                        tables.add(table);
                    }
                }
            }
            return tables;
        }
    }

    private record Rows(String table, List<String> columns, List<Object[]> values) {
        static Rows of(Connection c, String table) throws SQLException {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
                int n = rs.getMetaData().getColumnCount();
                List<String> columns = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    columns.add(rs.getMetaData().getColumnName(i));
                }
                List<Object[]> values = new ArrayList<>();
                while (rs.next()) {
                    Object[] row = new Object[n];
                    for (int i = 0; i < n; i++) {
                        row[i] = rs.getObject(i + 1);
                    }
                    values.add(row);
                }
                return new Rows(table, List.copyOf(columns), values);
            }
        }

        void insert(Connection c) throws SQLException {
            String sql = "INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES ("
                    + String.join(", ", java.util.Collections.nCopies(columns.size(), "?")) + ")";
            try (PreparedStatement p = c.prepareStatement(sql)) {
                for (Object[] row : values) {
                    for (int i = 0; i < row.length; i++) {
                        p.setObject(i + 1, row[i]);
                    }
                    p.addBatch();
                }
                p.executeBatch();
            }
        }
    }
}
