package io.gpupool.request.perf;

import io.gpupool.testing.Api;
import io.gpupool.testing.HttpJson;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Closed-loop REST load against a running service on the example fleet: each client thread
 * allocates a small lease (fractional dev or inference work, or one training GPU) and releases it
 * at once, so capacity never runs out and every cycle is one lease granted and returned. A
 * warm-up phase is not counted. Prints leases/s and per-call latency; started by scripts/load-rest.
 * Usage: RestLoadBenchmark <base-url> <admin-token> [threads] [warm-up seconds] [measured seconds]
 */
public final class RestLoadBenchmark {
    private static final String[][] TENANT_KIND = {{"rl", "dev"}, {"assistant", "dev"}, {"search", "inference"},
            {"ads", "inference"}, {"research", "training"}};

    /** One client's measurements. */
    private static final class Client {
        final List<Double> allocate = new ArrayList<>();
        final List<Double> release = new ArrayList<>();
        final Map<String, Integer> statuses = new TreeMap<>();
        int leases;
    }

    public static void main(String[] args) throws Exception {
        URI base = URI.create(args[0]);
        String token = args[1];
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 16;
        int warmUp = args.length > 3 ? Integer.parseInt(args[3]) : 10;
        int measured = args.length > 4 ? Integer.parseInt(args[4]) : 30;
        System.out.printf("load average at start: %.2f, cpus: %d, java %s, %d client threads against %s%n",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), threads, base);
        HttpJson http = new HttpJson(base, token);
        run(http, threads, warmUp, "warm-up");
        run(http, threads, measured, "measured");
    }

    private static void run(HttpJson http, int threads, int seconds, String label) throws Exception {
        // daemon threads: a failing run ends the JVM instead of leaving clients behind
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "load-client");
            t.setDaemon(true);
            return t;
        });
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<Future<Client>> futures = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            int seed = t;
            futures.add(pool.submit(() -> cycle(http, new Random(seed), end)));
        }
        List<Double> allocate = new ArrayList<>();
        List<Double> release = new ArrayList<>();
        Map<String, Integer> statuses = new TreeMap<>();
        int leases = 0;
        for (Future<Client> f : futures) {
            Client c = f.get(seconds + 60L, TimeUnit.SECONDS);
            allocate.addAll(c.allocate);
            release.addAll(c.release);
            c.statuses.forEach((k, v) -> statuses.merge(k, v, Integer::sum));
            leases += c.leases;
        }
        pool.shutdown();
        double elapsed = (System.nanoTime() - start) / 1e9;
        System.out.printf("%s: %d leases allocated and released in %.1f s = %.0f leases/s (%.0f HTTP calls/s); statuses %s%n",
                label, leases, elapsed, leases / elapsed, (allocate.size() + release.size()) / elapsed, statuses);
        print(label + " allocate (POST /api/v1/requests)", allocate);
        print(label + " release (POST /api/v1/leases/{id}/release)", release);
    }

    private static Client cycle(HttpJson http, Random random, long end) {
        Client c = new Client();
        while (System.nanoTime() < end) {
            String[] tk = TENANT_KIND[random.nextInt(TENANT_KIND.length)];
            Map<String, Object> body = new HashMap<>();
            body.put("tenant", tk[0]);
            body.put("kind", tk[1]);
            body.put("gpus", 1);
            if (!tk[1].equals("training")) {
                body.put("milliPerGpu", 100 * (1 + random.nextInt(3)));
            }
            long t0 = System.nanoTime();
            Api.Reply placed;
            try {
                placed = http.post("/api/v1/requests", body);
            } catch (RuntimeException connectionLost) {
                // the JDK client may reuse a keep-alive connection the server just closed; count it and go on
                c.statuses.merge("allocate I/O error", 1, Integer::sum);
                continue;
            }
            c.allocate.add((System.nanoTime() - t0) / 1e6);
            c.statuses.merge("allocate " + placed.status(), 1, Integer::sum);
            if (placed.status() != 201) {
                continue;
            }
            long t1 = System.nanoTime();
            String path = "/api/v1/leases/" + placed.body().at("/lease/id").asText() + "/release";
            Api.Reply released;
            try {
                released = http.post(path, Map.of());
            } catch (RuntimeException connectionLost) {
                c.statuses.merge("release I/O error, retried", 1, Integer::sum);
                released = http.post(path, Map.of());
            }
            c.release.add((System.nanoTime() - t1) / 1e6);
            c.statuses.merge("release " + released.status(), 1, Integer::sum);
            if (released.status() == 200) {
                c.leases++;
            }
        }
        return c;
    }

    private static void print(String what, List<Double> millis) {
        double[] sorted = millis.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        System.out.printf("  %-55s n=%6d  p50 %7.2f ms  p99 %7.2f ms  max %7.2f ms%n", what, sorted.length,
                at(sorted, 50), at(sorted, 99), at(sorted, 100));
    }

    private static double at(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
}
