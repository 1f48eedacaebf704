package io.gpupool.prometheus;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A real Prometheus server (the Debian package's {@code prometheus} binary, started here, never as
 * a system service) scraping a tiny exporter in this JVM every second. The exporter serves what
 * {@code body} supplies: recorded dcgm-exporter text. {@link #binary()} is null where Prometheus is
 * not installed, and the tests skip, saying so.
 */
final class LocalPrometheus implements AutoCloseable {
    private final HttpServer exporter;
    private final Process prometheus;
    private final Path dir;
    private final URI url;
    final AtomicReference<Supplier<String>> body;

    static Path binary() {
        for (String p : new String[]{"/usr/bin/prometheus", "/usr/local/bin/prometheus"}) {
            if (Files.isExecutable(Path.of(p))) {
                return Path.of(p);
            }
        }
        return null;
    }

    /**
     * Starts both. {@code targetLabels}: labels the scrape config adds to the target (YAML map
     * text, e.g. {@code Hostname: scraper-01}); a scraped label of the same name becomes
     * {@code exported_<name>}, as in a Kubernetes deployment.
     */
    LocalPrometheus(Supplier<String> initial, String targetLabels) throws IOException, InterruptedException {
        body = new AtomicReference<>(initial);
        exporter = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        exporter.createContext("/metrics", ex -> {
            byte[] bytes = body.get().get().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4");
            ex.sendResponseHeaders(200, bytes.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(bytes);
            }
        });
        exporter.start();
        dir = Files.createTempDirectory("gpupool-prometheus");
        int port = freePort();
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                scrape_configs:
                  - job_name: dcgm
                    static_configs:
                      - targets: ['127.0.0.1:%d']
                        labels: {%s}
                """.formatted(exporter.getAddress().getPort(), targetLabels));
        prometheus = new ProcessBuilder(binary().toString(), "--config.file=" + config, "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port, "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
        url = URI.create("http://127.0.0.1:" + port + "/");
        waitUntil(() -> get("-/ready").startsWith("Prometheus"), "Prometheus to be ready");
    }

    URI url() {
        return url;
    }

    /** Waits until Prometheus answers {@code promql} with at least one series. */
    void waitForSeries(String promql) throws InterruptedException {
        waitUntil(() -> get("api/v1/query?query=" + java.net.URLEncoder.encode(promql, StandardCharsets.UTF_8))
                .contains("\"metric\""), "a scraped series of " + promql);
    }

    private void waitUntil(Supplier<Boolean> done, String what) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(30);
        while (Instant.now().isBefore(deadline)) {
            try {
                if (done.get()) {
                    return;
                }
            } catch (RuntimeException ignored) {
                // not up yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("gave up waiting for " + what + "; Prometheus log: " + log());
    }

    private String get(String path) {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(url.resolve(path)).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private String log() {
        try {
            return Files.readString(dir.resolve("prometheus.log"));
        } catch (IOException e) {
            return "(none)";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static String recording(String path) {
        try (InputStream in = LocalPrometheus.class.getResourceAsStream("/inventory-samples/" + path)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        prometheus.destroy();
        if (!prometheus.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
            prometheus.destroyForcibly();
        }
        exporter.stop(0);
        try (var walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
