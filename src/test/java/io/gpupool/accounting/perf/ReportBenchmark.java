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
                        ? () -> usage.usage(window, dims, admin) : () -> cost.cost(window, dims, admin), plain);
            }
            if (rawRuns > 0) {
                UsageReports raw = usage.overRawLedger();
                CostReports rawCost = cost.over(raw);
                for (String report : List.of("usage", "cost")) {
                    Object answer = time("raw ledger", report, rawRuns, report.equals("usage")
                            ? () -> raw.usage(window, dims, admin) : () -> rawCost.cost(window, dims, admin), plain);
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

    /**
     * Times {@code report} {@code runs} times after two unmeasured runs; prints and returns the last
     * answer. Besides wall time, the CPU the report used: this thread's (the Java side; with embedded H2
     * the database's too) and, on PostgreSQL, that of the server processes serving this database, read
     * from /proc — figures a busy machine inflates far less than wall time.
     */
    static Object time(String source, String report, int runs, java.util.function.Supplier<Object> run,
                       DataSource plain) throws Exception {
        List<Double> ms = new ArrayList<>();
        List<Double> javaCpu = new ArrayList<>();
        List<Double> dbCpu = new ArrayList<>();
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        Object answer = null;
        for (int i = 0; i < runs + 2; i++) {
            double db0 = serverCpuMs(plain);
            long cpu0 = threads.getCurrentThreadCpuTime();
            long s = System.nanoTime();
            answer = run.get();
            double took = (System.nanoTime() - s) / 1e6;
            double cpu = (threads.getCurrentThreadCpuTime() - cpu0) / 1e6;
            double db = serverCpuMs(plain) - db0;
            if (i >= 2) {
                ms.add(took); // the first two warm the JIT and the database's caches
                javaCpu.add(cpu);
                dbCpu.add(db);
            }
        }
        int size = answer instanceof UsageReport u ? u.rows().size()
                : ((io.gpupool.accounting.CostReport) answer).rows().size();
        System.out.printf("%s report from the %s, 30 days by day, tenant x model: %d rows; %d runs: wall min %.0f ms,"
                + " median %.0f ms, max %.0f ms; CPU median: this thread %.0f ms, database server %.0f ms; load %s%n",
                report, source, size, runs, min(ms), median(ms), max(ms), median(javaCpu), median(dbCpu), loadAverage());
        return answer;
    }

    private static double median(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).sorted().toArray()[xs.size() / 2];
    }

    private static double min(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).min().orElse(0);
    }

    private static double max(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    }

    static String loadAverage() {
        try {
            String[] f = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (Exception e) {
            return "unknown";
        }
    }

    /** CPU milliseconds (user + system) of the PostgreSQL processes serving this database so far; 0 elsewhere. */
    static double serverCpuMs(DataSource dataSource) throws Exception {
        List<Long> pids = new ArrayList<>();
        try (Connection c = dataSource.getConnection()) {
            if (!c.getMetaData().getDatabaseProductName().equals("PostgreSQL")) {
                return 0;
            }
            try (Statement st = c.createStatement(); java.sql.ResultSet rs = st.executeQuery(
                    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")) {
                while (rs.next()) {
                    pids.add(rs.getLong(1));
                }
            }
        }
        long ticks = 0;
        for (long pid : pids) {
            try {
                String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime: fields 14 and 15
            } catch (Exception e) {
                // another host's or an ended process
            }
        }
        return ticks * 10.0; // USER_HZ = 100 on Linux
    }

    /**
     * The synthetic ledger: every card's capacity from before the window, then each lease's open and close entries.
     * The lease entries are written as stored rows, the form before migration V19 (the service now reads them from
     * the lease rows): every sum reads stored rows the same way (store.LedgerSource), and rolled up they are the same
     * rollup rows, which is what these reports read; only the few entries after the cursor are read raw.
     */
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
                if (!Boolean.getBoolean("bench.rowByRow")) {
                    rows += leasesOnServer(c, gpus, leases);
                    leases = 0; // written by the database itself; row by row took ~20 min (PostgreSQL), 635 s (H2)
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
     * The same shape of leases generated by the database itself, in SQL both PostgreSQL and H2 run
     * (deterministic in the lease number: 1, 2, 4 or 8 cards, starts spread over the 30 days, 5 minutes
     * to 4 hours, 50 tenants, 4 kinds, one in ten borrowed): each card's start, then each card's end
     * where it falls inside the window.
     */
    static long leasesOnServer(Connection c, int gpus, int leases) throws Exception {
        long rows = 0;
        // in slices, each committed: H2 kept one 4.2-million-row transaction's undo in its file (9 GB, unfinished after 35 min)
        for (int from = 0; from < leases; from += LEASES_PER_SLICE) {
            rows += leasesOnServer(c, gpus, from, Math.min(leases, from + LEASES_PER_SLICE));
        }
        return rows;
    }

    private static final int LEASES_PER_SLICE = 50_000;

    /** Leases [from, to) of {@link #leasesOnServer(Connection, int, int)}, committed. */
    private static long leasesOnServer(Connection c, int gpus, int fromLease, int toLease) throws Exception {
        long s = START.toEpochMilli();
        long w = Duration.ofDays(30).toMillis();
        String lease = "(SELECT n.v AS n, MOD(CAST(n.v AS BIGINT) * 7919, " + gpus + ") AS first,"
                + " CASE MOD(n.v, 11) WHEN 7 THEN 2 WHEN 8 THEN 2 WHEN 9 THEN 4 WHEN 10 THEN 8 ELSE 1 END AS cards,"
                + " " + s + " + MOD(CAST(n.v AS BIGINT) * 2654435761, " + w + ") AS st,"
                + " 300000 + MOD(CAST(n.v AS BIGINT) * 40503, 14100000) AS dur FROM generate_series(" + fromLease + ", "
                + (toLease - 1) + ") AS n(v)) l JOIN generate_series(0, 7) AS k(v) ON k.v < l.cards";
        String card = "MOD(l.first + k.v, " + gpus + ")";
        String columns = "'LEASE', 'gpu-' || CAST(" + card + " AS VARCHAR(16)), CASE MOD(" + card + ", 5)"
                + " WHEN 0 THEN 'H100-SXM-80G' WHEN 1 THEN 'A100-SXM4-80GB' WHEN 2 THEN 'L40S-48G' WHEN 3 THEN 'H200-SXM-141G'"
                + " ELSE 'T4-16G' END, 'pool-' || CAST(MOD(" + card + ", 4) AS VARCHAR(4)), 'lease-' || CAST(l.n AS VARCHAR(16)),"
                + " 'team-' || CAST(MOD(CAST(l.n AS BIGINT) * 31, 50) AS VARCHAR(4)), CASE MOD(l.n, 4) WHEN 0 THEN 'TRAINING'"
                + " WHEN 1 THEN 'INFERENCE' WHEN 2 THEN 'EXPERIMENT' ELSE 'DEV' END, NULL,"
                + " CASE WHEN MOD(l.n, 10) = 0 THEN 'BORROWED' ELSE 'GUARANTEE' END, NULL";
        String insert = "INSERT INTO ledger_entry (at_ms, delta_milli, state, subject, device_id, model, pool_id, lease_id,"
                + " tenant_id, kind, priority_class, funding, lender_id)";
        try (Statement st = c.createStatement()) {
            long rows = st.executeUpdate(insert + " SELECT l.st, 1000, 'ACTIVE', " + columns + " FROM " + lease);
            rows += st.executeUpdate(insert + " SELECT l.st + l.dur, -1000, 'RELEASED', " + columns + " FROM " + lease
                    + " WHERE l.st + l.dur < " + (s + w));
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
