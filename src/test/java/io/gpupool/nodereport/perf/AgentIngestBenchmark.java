package io.gpupool.nodereport.perf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Activity;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.testing.Api;
import io.gpupool.testing.HttpJson;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Agent report ingest over REST against a running service: {@code nodes} nodes of 8 GPUs each in
 * cluster {@code cluster}, reported round-robin by {@code threads} clients, each report one
 * activity sample per GPU. With {@code rate} > 0 the clients pace themselves to that many reports
 * per second in total (10,000 GPUs at one sample per 10 s = 1,250 nodes at 125 reports/s); with 0
 * they report as fast as the service answers. First every node is registered (its first report
 * creates it), then the measured phase runs. Prints reports/s, samples/s, latency and statuses.
 * Usage: AgentIngestBenchmark <base-url> <admin-token> <cluster> [nodes] [threads] [rate] [seconds]
 */
public final class AgentIngestBenchmark {
    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

    public static void main(String[] args) throws Exception {
        URI base = URI.create(args[0]);
        HttpJson http = new HttpJson(base, args[1]);
        String cluster = args[2];
        int nodes = args.length > 3 ? Integer.parseInt(args[3]) : 1250;
        int threads = args.length > 4 ? Integer.parseInt(args[4]) : 8;
        double rate = args.length > 5 ? Double.parseDouble(args[5]) : 125;
        int seconds = args.length > 6 ? Integer.parseInt(args[6]) : 30;
        System.out.printf("load average at start: %.2f, cpus: %d, %d nodes x 8 GPUs, %d clients, rate %s%n",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                Runtime.getRuntime().availableProcessors(), nodes, threads, rate > 0 ? rate + " reports/s" : "max");
        AtomicLong sequence = new AtomicLong(System.currentTimeMillis());
        long start = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicInteger next = new AtomicInteger();
        List<java.util.concurrent.Future<?>> regs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            regs.add(pool.submit(() -> {
                for (int n = next.getAndIncrement(); n < nodes; n = next.getAndIncrement()) {
                    Api.Reply r = http.post("/api/v1/agent/reports", report(cluster, n, sequence.incrementAndGet()));
                    if (r.status() != 200) {
                        throw new IllegalStateException("registering node " + n + ": " + r.status() + " " + r.body());
                    }
                }
            }));
        }
        for (var f : regs) {
            f.get();
        }
        System.out.printf("registered %d nodes in %.1f s%n", nodes, (System.nanoTime() - start) / 1e9);

        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
        Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
        AtomicInteger node = new AtomicInteger();
        long measuredStart = System.nanoTime();
        long periodNanos = rate > 0 ? (long) (threads * 1e9 / rate) : 0;
        List<java.util.concurrent.Future<?>> runs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            runs.add(pool.submit(() -> {
                long due = System.nanoTime();
                while (System.nanoTime() < end) {
                    int n = Math.floorMod(node.getAndIncrement(), nodes);
                    long t0 = System.nanoTime();
                    Api.Reply r = http.post("/api/v1/agent/reports", report(cluster, n, sequence.incrementAndGet()));
                    latencies.add((System.nanoTime() - t0) / 1e6);
                    statuses.computeIfAbsent(r.status(), k -> new AtomicInteger()).incrementAndGet();
                    if (periodNanos > 0) {
                        due += periodNanos;
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            TimeUnit.NANOSECONDS.sleep(wait);
                        }
                    }
                }
                return null;
            }));
        }
        for (var f : runs) {
            f.get();
        }
        pool.shutdown();
        double elapsed = (System.nanoTime() - measuredStart) / 1e9;
        List<Double> sorted = new ArrayList<>(latencies);
        Collections.sort(sorted);
        Map<Integer, Integer> codes = new TreeMap<>();
        statuses.forEach((k, v) -> codes.put(k, v.get()));
        System.out.printf("measured: %d reports in %.1f s = %.0f reports/s = %.0f GPU samples/s; latency ms p50 %.1f p99 %.1f; statuses %s%n",
                sorted.size(), elapsed, sorted.size() / elapsed, 8 * sorted.size() / elapsed,
                sorted.get(sorted.size() / 2), sorted.get((int) (sorted.size() * 0.99)), codes);
    }

    private static JsonNode report(String cluster, int n, long sequence) {
        String node = String.format("ingest-%05d", n);
        List<Gpu> gpus = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            double activity = ((n * 8 + i) * 7919 + sequence) % 100 / 100.0;
            gpus.add(new Gpu(i, "GPU-" + node + "-" + i, null, "NVIDIA H100 80GB HBM3", null, 81559L, false, List.of(),
                    List.of(), null, Activity.of(activity, null, null, 1024L * i)));
        }
        return JSON.valueToTree(new NodeReport(node, cluster, null, null, Map.of(), sequence, Instant.now(), 10,
                "benchmark", "590.48.01", null, gpus));
    }
}
