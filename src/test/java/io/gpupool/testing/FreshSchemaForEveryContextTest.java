package io.gpupool.testing;

import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.request.AllocationService;
import io.gpupool.request.NewRequest;
import io.micronaut.context.ApplicationContext;
import io.micronaut.jdbc.DataSourceResolver;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tests' isolation rests on {@link ResettingMigrationRunner}: every context must start on what a
 * clean migrate gives, whatever the context before it wrote, with identities counting from the
 * start again (decision ids and ledger ids are asserted on in other tests).
 */
@DatabaseTest
class FreshSchemaForEveryContextTest {
    private static final Caller ADMIN = new Caller("test", "test", Role.ADMIN, null);
    private static final Map<String, Object> EXAMPLE_FLEET = Map.of("gpupool.fleet-file", ExampleFleet.FILE.toString());

    @Test
    void aContextStartsOnTheSameTablesAsTheFirstWhateverTheOneBeforeItWrote() throws SQLException {
        Map<String, String> atFirstStart;
        Map<String, String> afterWork;
        try (ApplicationContext ctx = ApplicationContext.run(EXAMPLE_FLEET, "test")) {
            atFirstStart = tables(ctx);
            ctx.getBean(AllocationService.class).submit(new NewRequest("vision", WorkloadKind.DEV, 1, null,
                    null, null, null, null, null, null, null, null, null, null, null), null, ADMIN);
            afterWork = tables(ctx);
        }
        assertThat(afterWork).as("the placement wrote rows").isNotEqualTo(atFirstStart);

        try (ApplicationContext ctx = ApplicationContext.run(EXAMPLE_FLEET, "test")) {
            assertThat(tables(ctx)).isEqualTo(atFirstStart);
        }
    }

    /**
     * The tables a placement writes, synchronously: profiles, rollups and the like are written by
     * background work after start, so their counts at any instant depend on timing, not on the reset.
     */
    private static final java.util.Set<String> WRITTEN_BY_A_PLACEMENT =
            java.util.Set.of("gpu_request", "lease", "lease_share", "decision_log", "ledger_entry");

    /** Per table a placement writes, its row count and, where it has a numeric id (an identity), the largest id. */
    private static Map<String, String> tables(ApplicationContext ctx) throws SQLException {
        DataSource ds = ctx.getBean(DataSourceResolver.class).resolve(ctx.getBean(DataSource.class));
        Map<String, String> out = new TreeMap<>();
        try (Connection c = ds.getConnection()) {
            try (ResultSet rs = c.getMetaData().getTables(null, c.getSchema(), "%", new String[]{"TABLE"})) {
                while (rs.next()) {
                    out.put(rs.getString("TABLE_NAME"), "");
                }
            }
            for (String table : out.keySet().toArray(String[]::new)) {
                if (!WRITTEN_BY_A_PLACEMENT.contains(table.toLowerCase(java.util.Locale.ROOT))) {
                    out.remove(table);
                    continue;
                }
                out.put(table, figures(c, table));
            }
        }
        return out;
    }

    private static String figures(Connection c, String table) throws SQLException {
        boolean hasId;
        try (ResultSet cols = c.getMetaData().getColumns(null, c.getSchema(), table, "id")) {
            hasId = cols.next() && (cols.getInt("DATA_TYPE") == java.sql.Types.BIGINT || cols.getInt("DATA_TYPE") == java.sql.Types.INTEGER);
        }
        String sql = hasId ? "SELECT COUNT(*), MAX(id) FROM " + table : "SELECT COUNT(*), NULL FROM " + table;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1) + " rows, max id " + rs.getString(2);
        }
    }
}
