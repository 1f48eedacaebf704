package io.gpupool.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The real service as a child JVM (the test's own classpath, {@code io.gpupool.Application}), for
 * tests that must kill it the way an operator's {@code kill -9} does. Output goes to a log file the
 * test shows on failure. Callers always {@link #kill()} in a finally.
 */
public final class ServiceProcess {
    private final Process process;
    private final Path log;
    private final int port;

    private ServiceProcess(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /** Starts the service with these system properties and waits until {@code /health} answers 200. */
    public static ServiceProcess start(Map<String, String> properties, int port, Path log, Duration timeout) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx1g");
        command.add("-XX:TieredStopAtLevel=1"); // starts faster; this test measures correctness, not speed
        command.add("-Dmicronaut.env.deduction=false"); // never pick up the test environment's in-memory H2
        command.add("-Dmicronaut.server.port=" + port);
        properties.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("io.gpupool.Application");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            ServiceProcess service = new ServiceProcess(p, log, port);
            service.awaitHealthy(timeout);
            return service;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + port + "/");
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed by the service. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public String logText() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private void awaitHealthy(Duration timeout) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("service exited with " + process.exitValue() + ":\n" + logText());
            }
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri().resolve("/health"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            sleep(200);
        }
        kill();
        throw new IllegalStateException("service not healthy within " + timeout + ":\n" + logText());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
