package io.gpupool.accounting.perf;

import io.gpupool.accounting.Dimension;
import io.gpupool.accounting.ReportWindow;
import io.gpupool.accounting.UtilisationReport;
import io.gpupool.accounting.UtilisationReports;
import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.fleet.FleetImporter;
import io.micronaut.context.ApplicationContext;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The utilisation report at fleet scale: {@code gpus} cards (8 a node, 4 models, one pool, 20
 * tenants) each leased back to back by one-GPU leases of 2 to 10 hours over {@code days} days,
 * with a 5-minute telemetry rollup per card and slot (graphics-engine activity, some leases busy,
 * some idle, 5 % of the slots missing), written straight into an empty database; then the report
 * over the whole window, grouped by tenant × model, day by day, timed in the service's own code (no
 * HTTP) as an admin.
 *
 * <p>Usage: {@code scripts/benchmark io.gpupool.accounting.perf.UtilisationBenchmark JDBC_URL [gpus] [days] [runs]}
 * on a fresh database (PostgreSQL: {@code createdb}; H2: a new file URL in PostgreSQL mode).
 */
public final class UtilisationBenchmark {
    static final String[] MODELS = {"H100-SXM-80G", "A100-SXM4-80GB", "L40S-48G", "T4-16G"};
    static final long SLOT = 300_000L;

    public static void main(String[] args) throws Exception {
        String url = args[0];
        int gpus = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
        int days = args.length > 2 ? Integer.parseInt(args[2]) : 30;
        int runs = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        Instant end = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.DAYS);
        Instant start = end.minus(Duration.ofDays(days));
        Map<String, Object> props = Map.of("datasources.default.url", url,
                "datasources.default.username", url.startsWith("jdbc:postgresql") ? "postgres" : "sa",
                "datasources.default.password", "", "gpupool.admin-token", "bench-admin-token-0001",
                "micronaut.server.port", -1, "gpupool.webhooks.enabled", false,
                "gpupool.accounting.rollup.enabled", false, "gpupool.telemetry.retention-check", "1000d");
        try (ApplicationContext context = ApplicationContext.run(props)) {
            DataSource plain = io.micronaut.data.connection.jdbc.advice.DelegatingDataSource.unwrapDataSource(
                    context.getBean(DataSource.class));
            long t0 = System.nanoTime();
            long[] filled = filled(plain) ? new long[2] : fill(context, plain, gpus, start, end);
            System.out.printf("filled: %d leases, %d telemetry rollups (%d cards, %d days) in %.1f s%n", filled[0],
                    filled[1], gpus, days, (System.nanoTime() - t0) / 1e9);
            UtilisationReports reports = context.getBean(UtilisationReports.class);
            Caller admin = new Caller("bench", "bench", Role.ADMIN, null);
            List<Dimension> dims = List.of(Dimension.TENANT, Dimension.MODEL);
            ReportWindow window = ReportWindow.of(start, end, io.gpupool.accounting.Step.DAY);
            for (int run = 0; run < runs; run++) {
                long r0 = System.nanoTime();
                UtilisationReport report = reports.utilisation(window, dims, 10, admin);
                double allocated = report.rows().stream().mapToDouble(r -> r.allocatedGpuHours().doubleValue()).sum();
                double effective = report.rows().stream().mapToDouble(r -> r.effectiveGpuHours().doubleValue()).sum();
                System.out.printf("utilisation %d days by tenant x model, day: %.0f ms (%d rows, %.0f GPU-h allocated, "
                                + "%.0f effective)%n", days, (System.nanoTime() - r0) / 1e6, report.rows().size(), allocated,
                        effective);
            }
        }
    }

    private static boolean filled(DataSource ds) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             var rs = s.executeQuery("SELECT COUNT(*) FROM device_sample_rollup")) {
            rs.next();
            return rs.getLong(1) > 0;
        }
    }

    private static long[] fill(ApplicationContext context, DataSource ds, int gpus, Instant start, Instant end)
            throws Exception {
        StringBuilder fleet = new StringBuilder("sites: [{id: s, name: S}]\nclusters: [{id: c, site: s}]\n"
                + "pools: [{id: bench, tier: TRAINING, placementStrategy: default, sharingAllowed: false}]\nnodes:\n");
        for (int n = 0; n < gpus / 8; n++) {
            fleet.append("  - {id: n").append(n).append(", cluster: c, gpus: {count: 8, model: ")
                    .append(MODELS[n % MODELS.length]).append(", memoryMib: 81920, pool: bench}}\n");
        }
        fleet.append("tenants:\n");
        for (int t = 0; t < 20; t++) {
            fleet.append("  - {id: t").append(t).append("}\n");
        }
        context.getBean(FleetImporter.class).importText(fleet.toString(), true, "bench", "bench");
        Random random = new Random(42);
        long leases = 0;
        long rollups = 0;
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            // As the writer leaves them (migration V19): the lease's commit sequence where it opened and
            // closed, its shares' models; the ledger reads the lease entries from these rows.
            Batch lease = new Batch(c, "INSERT INTO lease (id, request_id, tenant_id, pool_id, kind, priority, preemptible, "
                    + "borrowed, state, created_at, ended_at, opened_seq, closed_seq, ledger_seq) VALUES ",
                    "(?, ?, ?, 'bench', 'TRAINING', 100, FALSE, FALSE, ?, ?, ?, ?, ?, ?)", 9);
            Batch share = new Batch(c, "INSERT INTO lease_share (lease_id, device_id, milli, model) VALUES ", "(?, ?, 1000, ?)", 3);
            Batch rollup = new Batch(c, "INSERT INTO device_sample_rollup (device_id, bucket_ms, metric, activity_avg, "
                    + "activity_max, framebuffer_avg_mib, framebuffer_max_mib, sample_count) VALUES ",
                    "(?, ?, 'GR_ENGINE_ACTIVE', ?, ?, ?, ?, 10)", 6);
            long endMs = end.toEpochMilli();
            for (int n = 0; n < gpus / 8; n++) {
                String model = MODELS[n % MODELS.length];
                for (int g = 0; g < 8; g++) {
                    String device = "n" + n + "-gpu" + g;
                    long t = start.toEpochMilli() - random.nextInt(6) * 3_600_000L;
                    while (t < endMs) {
                        long until = t + (2 + random.nextInt(9)) * 3_600_000L;
                        boolean ended = until <= endMs;
                        String id = "L" + (++leases);
                        String tenant = "t" + random.nextInt(20);
                        lease.add(id, id, tenant, ended ? "RELEASED" : "ACTIVE", new Timestamp(t),
                                ended ? new Timestamp(until) : null, 1L, ended ? 2L : null, ended ? 2L : 1L);
                        share.add(id, device, model);
                        double level = random.nextInt(3) == 0 ? 0.02 : 0.3 + 0.6 * random.nextDouble();
                        for (long slot = Math.max(t, start.toEpochMilli()) / SLOT * SLOT; slot < Math.min(until, endMs);
                             slot += SLOT) {
                            if (random.nextInt(20) == 0) {
                                continue;
                            }
                            float a = (float) Math.min(1, level * (0.8 + 0.4 * random.nextDouble()));
                            rollup.add(device, slot, a, Math.min(1f, a * 1.2f), 40000, 41000);
                            rollups++;
                        }
                        t = until;
                    }
                }
            }
            for (Batch b : List.of(lease, share, rollup)) {
                b.flush();
            }
            c.commit();
            try (Statement s = c.createStatement()) {
                if (c.getMetaData().getDatabaseProductName().equals("PostgreSQL")) {
                    c.setAutoCommit(true);
                    s.execute("ANALYZE"); // as autovacuum would after such a load
                }
            }
        }
        return new long[]{leases, rollups};
    }

    /** Multi-row inserts of {@code columns} parameters a row, 1,000 rows a statement. */
    private static final class Batch {
        private final Connection c;
        private final String head;
        private final String row;
        private final int columns;
        private final java.util.List<Object> pending = new java.util.ArrayList<>();

        Batch(Connection c, String head, String row, int columns) {
            this.c = c;
            this.head = head;
            this.row = row;
            this.columns = columns;
        }

        void add(Object... values) throws Exception {
            Collections.addAll(pending, values);
            if (pending.size() >= 1000 * columns) {
                flush();
            }
        }

        void flush() throws Exception {
            int rows = pending.size() / columns;
            if (rows == 0) {
                return;
            }
            try (PreparedStatement st = c.prepareStatement(head + String.join(", ", Collections.nCopies(rows, row)))) {
                for (int i = 0; i < pending.size(); i++) {
                    st.setObject(i + 1, pending.get(i));
                }
                st.executeUpdate();
            }
            pending.clear();
        }
    }
}
