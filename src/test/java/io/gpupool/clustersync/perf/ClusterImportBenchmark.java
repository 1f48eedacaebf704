package io.gpupool.clustersync.perf;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Whole-cluster imports over REST against a running service: a NodeList of {@code nodes} GPU nodes
 * (8 × H100 each, GFD labels and device-plugin capacity as the GPU operator writes them), imported
 * into cluster {@code cluster}: first as new, then unchanged ({@code rounds} times), then with every
 * tenth node cordoned (a change of 8 GPUs each). Prints each import's wall time as the client sees
 * it (parse, checks, reconciliation, commit) and the document's size.
 * Usage: ClusterImportBenchmark <base-url> <admin-token> <cluster> [nodes] [rounds]
 */
public final class ClusterImportBenchmark {
    public static void main(String[] args) throws Exception {
        URI base = URI.create(args[0]);
        String token = args[1];
        String cluster = args[2];
        int nodes = args.length > 3 ? Integer.parseInt(args[3]) : 1000;
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 5;
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        System.out.printf("load average at start: %.2f, cpus: %d, %d nodes x 8 GPUs%n",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                Runtime.getRuntime().availableProcessors(), nodes);
        String fresh = nodeList(cluster, nodes, false);
        String cordoned = nodeList(cluster, nodes, true);
        System.out.printf("document: %.1f MB%n", fresh.length() / 1e6);
        time(http, base, token, cluster, fresh, "first import (all new)");
        List<Double> unchanged = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            unchanged.add(time(http, base, token, cluster, fresh, "unchanged re-import " + (r + 1)));
        }
        time(http, base, token, cluster, cordoned, "every tenth node cordoned");
        time(http, base, token, cluster, fresh, "uncordoned again");
        unchanged.sort(null);
        System.out.printf("unchanged re-import: median %.0f ms, min %.0f ms, max %.0f ms%n", unchanged.get(unchanged.size() / 2),
                unchanged.get(0), unchanged.get(unchanged.size() - 1));
    }

    private static double time(HttpClient http, URI base, String token, String cluster, String doc, String what) throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(base.resolve("/api/v1/clusters/" + cluster + "/import?format=k8s"))
                .timeout(Duration.ofMinutes(5)).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(doc)).build(),
                HttpResponse.BodyHandlers.ofString());
        double ms = (System.nanoTime() - start) / 1e6;
        if (r.statusCode() != 200) {
            throw new IllegalStateException(what + ": " + r.statusCode() + " " + r.body().substring(0, Math.min(400, r.body().length())));
        }
        System.out.printf("%-28s %7.0f ms%n", what, ms);
        return ms;
    }

    private static String nodeList(String cluster, int nodes, boolean cordonEveryTenth) {
        StringBuilder sb = new StringBuilder("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
        for (int n = 0; n < nodes; n++) {
            if (n > 0) {
                sb.append(',');
            }
            boolean cordoned = cordonEveryTenth && n % 10 == 0;
            sb.append("""
                    {"kind":"Node","metadata":{"name":"%s-h100-%05d","labels":{"kubernetes.io/hostname":"%s-h100-%05d",
                     "topology.kubernetes.io/zone":"zone-%d","nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3",
                     "nvidia.com/gpu.count":"8","nvidia.com/gpu.memory":"81559","nvidia.com/gpu.family":"hopper",
                     "nvidia.com/mig.strategy":"single","nvidia.com/cuda.driver-version.full":"550.54.15"}},
                     "spec":{"unschedulable":%s},
                     "status":{"capacity":{"cpu":"224","nvidia.com/gpu":"8"},"allocatable":{"cpu":"220","nvidia.com/gpu":"8"},
                     "conditions":[{"type":"Ready","status":"True"}]}}""".formatted(cluster, n, cluster, n, n % 3, cordoned));
        }
        return sb.append("]}").toString();
    }
}
