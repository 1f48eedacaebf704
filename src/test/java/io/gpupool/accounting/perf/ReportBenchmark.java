package io.gpupool.accounting.perf;

import io.gpupool.accounting.CostReports;
import io.gpupool.accounting.Dimension;
import io.gpupool.accounting.ReportWindow;
import io.gpupool.accounting.UsageReport;
import io.gpupool.accounting.UsageReports;
import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.micronaut.context.ApplicationContext;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Report latency at fleet scale (issue 19 item 7): a ledger of {@code gpus} cards and {@code leases}
 * leases over 30 days (seeded: 1, 2, 4 or 8 cards each, 5 minutes to 4 hours, 50 tenants, 5 models),
 * written straight into {@code ledger_entry} of an empty database (with two prices, the second from mid-month), then the 30-day usage and cost
 * reports grouped by tenant × model, day by day, timed in the service's own code (no HTTP) as an admin
 * (so the fleet's capacity split is computed too).
 *
 * <p>Usage: {@code scripts/benchmark io.gpupool.accounting.perf.ReportBenchmark JDBC_URL [gpus] [leases] [runs] [rawRuns]}
 * on a fresh database (PostgreSQL: {@code createdb}; H2: a new file URL in PostgreSQL mode). After
 * the fill the rollups catch up with the whole ledger (timed; the service does this bit by bit after
 * each commit), then the reports are timed from the rollups, and {@code rawRuns} times (default 0)
 * summed from the raw ledger as before the rollups, each checked equal to the rollup-backed answer.
 */
public final class ReportBenchmark {
    static final Instant START = Instant.parse("2027-03-01T00:00:00Z");
    static final String[] MODELS = {"H100-SXM-80G", "A100-SXM4-80GB", "L40S-48G", "H200-SXM-141G", "T4-16G"};

    public static void main(String[] args) throws Exception {
        String url = args[0];
        int gpus = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        int leases = args.length > 2 ? Integer.parseInt(args[2]) : 1_000_000;
        int runs = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        Instant end = START.plus(Duration.ofDays(30));
        Map<String, Object> props = Map.of("datasources.default.url", url,
                "datasources.default.username", url.startsWith("jdbc:postgresql") ? "postgres" : "sa",
                "datasources.default.password", "", "gpupool.admin-token", "bench-admin-token-0001",
                "micronaut.server.port", -1, "gpupool.webhooks.enabled", false,
                "gpupool.accounting.retention", "100000d", "gpupool.accounting.rollup.enabled", false);
        int rawRuns = args.length > 4 ? Integer.parseInt(args[4]) : 0;
        try (ApplicationContext context = ApplicationContext.run(props)) {
            long t0 = System.nanoTime();
            // The bean is Micronaut Data's connection-bound proxy; filling needs plain connections of its own.
            DataSource plain = io.micronaut.data.connection.jdbc.advice.DelegatingDataSource.unwrapDataSource(
                    context.getBean(DataSource.class));
            long rows = filled(plain) ? 0 : fill(plain, gpus, leases); // a second run on the same database reuses it
            System.out.printf("ledger: %d entries (%d cards, %d leases over 30 days) written in %.1f s%n", rows, gpus,
                    leases, (System.nanoTime() - t0) / 1e9);
            long r0 = System.nanoTime();
            long rolled = context.getBean(io.gpupool.accounting.LedgerRollups.class).catchUp();
            System.out.printf("rollups: caught up with %d entries in %.1f s%n", rolled, (System.nanoTime() - r0) / 1e9);
            try (Connection c = plain.getConnection(); Statement analyze = c.createStatement()) {
                if (c.getMetaData().getDatabaseProductName().equals("PostgreSQL")) {
                    analyze.execute("ANALYZE ledger_rollup"); // as autovacuum would after such a load
                }
            }
            UsageReports usage = context.getBean(UsageReports.class);
            CostReports cost = context.getBean(CostReports.class);
            Caller admin = new Caller("bench", "bench", Role.ADMIN, null);
            List<Dimension> dims = List.of(Dimension.TENANT, Dimension.MODEL);
            ReportWindow window = ReportWindow.of(START, end, io.gpupool.accounting.Step.DAY);
            Object[] answers = new Object[2];
            for (String report : List.of("usage", "cost")) {
                answers[report.equals("usage") ? 0 : 1] = time("rollups", report, runs, report.equals("usage")
                        ? () -> usage.usage(window, dims, admin) : () -> cost.cost(window, dims, admin));
            }
            if (rawRuns > 0) {
                UsageReports raw = usage.overRawLedger();
                CostReports rawCost = cost.over(raw);
                for (String report : List.of("usage", "cost")) {
                    Object answer = time("raw ledger", report, rawRuns, report.equals("usage")
                            ? () -> raw.usage(window, dims, admin) : () -> rawCost.cost(window, dims, admin));
                    System.out.printf("%s report: raw ledger and rollups agree: %b%n", report,
                            answer.equals(answers[report.equals("usage") ? 0 : 1]));
                }
            }
        }
    }

    static boolean filled(DataSource dataSource) throws Exception {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM ledger_entry")) {
            rs.next();
            return rs.getLong(1) > 0;
        }
    }

    /** Times {@code report} {@code runs} times after two unmeasured runs; prints and returns the last answer. */
    static Object time(String source, String report, int runs, java.util.function.Supplier<Object> run) {
        List<Double> ms = new ArrayList<>();
        Object answer = null;
        for (int i = 0; i < runs + 2; i++) {
            long s = System.nanoTime();
            answer = run.get();
            double took = (System.nanoTime() - s) / 1e6;
            if (i >= 2) {
                ms.add(took); // the first two warm the JIT and the database's caches
            }
        }
        int size = answer instanceof UsageReport u ? u.rows().size()
                : ((io.gpupool.accounting.CostReport) answer).rows().size();
        double[] sorted = ms.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        System.out.printf("%s report from the %s, 30 days by day, tenant x model: %d rows; %d runs: min %.0f ms,"
                + " median %.0f ms, max %.0f ms%n", report, source, size, runs, sorted[0], sorted[sorted.length / 2],
                sorted[sorted.length - 1]);
        return answer;
    }

    /** The synthetic ledger: every card's capacity from before the window, then each lease's open and close entries. */
    static long fill(DataSource dataSource, int gpus, int leases) throws Exception {
        Random random = new Random(19);
        long windowMs = Duration.ofDays(30).toMillis();
        long rows = 0;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            String sql = "INSERT INTO ledger_entry (at_ms, subject, delta_milli, device_id, model, pool_id, lease_id,"
                    + " tenant_id, kind, priority_class, funding, lender_id, state) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)";
            try (PreparedStatement s = c.prepareStatement(sql)) {
                for (int g = 0; g < gpus; g++) {
                    add(s, START.toEpochMilli() - 86_400_000L, "DEVICE", 1000, "gpu-" + g, MODELS[g % MODELS.length],
                            "pool-" + g % 4, null, null, null, null, null, null, "HEALTHY");
                    rows++;
                }
                s.executeBatch();
                if (c.getMetaData().getDatabaseProductName().equals("PostgreSQL")) {
                    rows += leasesOnServer(c, gpus, leases);
                    leases = 0; // written by the server in one statement; row by row over loopback took ~20 min
                }
                int[] sizes = {1, 1, 1, 1, 1, 1, 1, 2, 2, 4, 8};
                String[] kinds = {"TRAINING", "INFERENCE", "EXPERIMENT", "DEV"};
                for (int l = 0; l < leases; l++) {
                    int cards = sizes[random.nextInt(sizes.length)];
                    int first = random.nextInt(gpus);
                    long start = START.toEpochMilli() + (long) (random.nextDouble() * windowMs);
                    long stop = start + 300_000L + (long) (random.nextDouble() * 14_100_000L);
                    String tenant = "team-" + random.nextInt(50);
                    String kind = kinds[random.nextInt(kinds.length)];
                    String funding = random.nextInt(10) == 0 ? "BORROWED" : "GUARANTEE";
                    for (int k = 0; k < cards; k++) {
                        int g = (first + k) % gpus;
                        String model = MODELS[g % MODELS.length];
                        add(s, start, "LEASE", 1000, "gpu-" + g, model, "pool-" + g % 4, "lease-" + l, tenant, kind, null,
                                funding, null, "ACTIVE");
                        if (stop < START.toEpochMilli() + windowMs) {
                            add(s, stop, "LEASE", -1000, "gpu-" + g, model, "pool-" + g % 4, "lease-" + l, tenant, kind,
                                    null, funding, null, "RELEASED");
                            rows++;
                        }
                        rows++;
                    }
                    if (l % 5_000 == 4_999) {
                        s.executeBatch();
                        c.commit();
                    }
                }
                s.executeBatch();
                c.commit();
            }
            try (Statement prices = c.createStatement()) { // two rates, the second from mid-month: the cost report cuts there
                prices.execute("INSERT INTO price_rate (model, tier, per_gpu_hour, currency, effective_from, changed_by,"
                        + " changed_at) VALUES ('*', '*', 2.00, 'EUR', TIMESTAMP WITH TIME ZONE '2027-01-01 00:00:00+00',"
                        + " 'bench', CURRENT_TIMESTAMP), ('*', '*', 2.50, 'EUR', TIMESTAMP WITH TIME ZONE"
                        + " '2027-03-15 00:00:00+00', 'bench', CURRENT_TIMESTAMP)");
                c.commit();
            }
            try (Statement analyze = c.createStatement()) {
                if (c.getMetaData().getDatabaseProductName().equals("PostgreSQL")) {
                    c.setAutoCommit(true);
                    analyze.execute("ANALYZE ledger_entry");
                }
            }
        }
        return rows;
    }

    /**
     * The same shape of leases generated by PostgreSQL itself (deterministic in the lease number: 1, 2,
     * 4 or 8 cards, starts spread over the 30 days, 5 minutes to 4 hours, 50 tenants, 4 kinds, one in
     * ten borrowed).
     */
    static long leasesOnServer(Connection c, int gpus, int leases) throws Exception {
        long s = START.toEpochMilli();
        long w = Duration.ofDays(30).toMillis();
        String sql = "INSERT INTO ledger_entry (at_ms, subject, delta_milli, device_id, model, pool_id, lease_id,"
                + " tenant_id, kind, priority_class, funding, lender_id, state)"
                + " SELECT e.at_ms, 'LEASE', e.delta, 'gpu-' || e.g,"
                + " (ARRAY['H100-SXM-80G','A100-SXM4-80GB','L40S-48G','H200-SXM-141G','T4-16G'])[(1 + e.g % 5)::int],"
                + " 'pool-' || (e.g % 4), 'lease-' || e.n, 'team-' || ((e.n::bigint * 31) % 50),"
                + " (ARRAY['TRAINING','INFERENCE','EXPERIMENT','DEV'])[1 + e.n % 4], NULL,"
                + " CASE WHEN e.n % 10 = 0 THEN 'BORROWED' ELSE 'GUARANTEE' END, NULL, e.state"
                + " FROM (SELECT l.n, (l.first + k) % " + gpus + " AS g, x.at_ms, x.delta, x.state FROM"
                + " (SELECT n, (n::bigint * 7919) % " + gpus + " AS first,"
                + " CASE n % 11 WHEN 7 THEN 2 WHEN 8 THEN 2 WHEN 9 THEN 4 WHEN 10 THEN 8 ELSE 1 END AS cards,"
                + " " + s + " + (n::bigint * 2654435761) % " + w + " AS st,"
                + " 300000 + (n::bigint * 40503) % 14100000 AS dur FROM generate_series(0, " + (leases - 1) + ") n) l"
                + " CROSS JOIN LATERAL generate_series(0, l.cards - 1) k"
                + " CROSS JOIN LATERAL (VALUES (l.st, 1000, 'ACTIVE'), (l.st + l.dur, -1000, 'RELEASED'))"
                + " x(at_ms, delta, state) WHERE x.delta > 0 OR l.st + l.dur < " + (s + w) + ") e";
        try (Statement insert = c.createStatement()) {
            long rows = insert.executeUpdate(sql);
            c.commit();
            return rows;
        }
    }

    private static void add(PreparedStatement s, long at, Object... values) throws Exception {
        s.setLong(1, at);
        for (int i = 0; i < values.length; i++) {
            if (i == 1) {
                s.setInt(3, (Integer) values[i]);
            } else {
                s.setObject(i + 2, values[i]);
            }
        }
        s.addBatch();
    }
}
