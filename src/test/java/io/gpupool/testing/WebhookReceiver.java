package io.gpupool.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A webhook receiver on 127.0.0.1 at a free port: records every POST (headers, body, arrival) and
 * answers with the statuses it was told, in order, then with its default (200).
 */
public final class WebhookReceiver implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpServer server;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final Deque<Integer> statuses = new ArrayDeque<>();
    private volatile int defaultStatus = 200;
    private volatile Duration delay = Duration.ZERO;

    /** One POST as it arrived. */
    public record Received(String event, String delivery, String timestamp, String signature, String contentType,
                           byte[] body, Instant at) {
        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Whether the signature is the HMAC-SHA256 of "timestamp.body" under {@code secret}, computed here independently. */
        public boolean signedWith(String secret) {
            try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
                mac.update((timestamp + ".").getBytes(StandardCharsets.UTF_8));
                return ("sha256=" + HexFormat.of().formatHex(mac.doFinal(body))).equals(signature);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    public WebhookReceiver() {
        this(0);
    }

    /** A receiver on {@code port} (0: any free one). */
    public WebhookReceiver(int port) {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            var h = exchange.getRequestHeaders();
            received.add(new Received(h.getFirst("X-Gpupool-Event"), h.getFirst("X-Gpupool-Delivery"),
                    h.getFirst("X-Gpupool-Timestamp"), h.getFirst("X-Gpupool-Signature"), h.getFirst("Content-Type"),
                    body, Instant.now()));
            int status;
            synchronized (statuses) {
                status = statuses.isEmpty() ? defaultStatus : statuses.poll();
            }
            try {
                Thread.sleep(delay.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        server.start();
    }

    /** The next answers, in order; after them the default. */
    public WebhookReceiver answering(Integer... next) {
        synchronized (statuses) {
            statuses.addAll(List.of(next));
        }
        return this;
    }

    public WebhookReceiver answeringAlways(int status) {
        defaultStatus = status;
        return this;
    }

    public WebhookReceiver answeringAfter(Duration wait) {
        delay = wait;
        return this;
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/hooks/gpupool";
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public List<Received> received() {
        return List.copyOf(received);
    }

    /** Waits until {@code count} POSTs arrived, at most {@code within}; returns them all. */
    public List<Received> await(int count, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (received.size() < count && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return received();
    }

    /**
     * The distinct deliveries received so far, each as it first arrived. Delivery is at least once: a
     * POST whose answer came after the service's request timeout (a loaded machine) is sent again
     * with the same delivery id, which is how receivers drop the copy.
     */
    public List<Received> deliveries() {
        java.util.Map<String, Received> first = new java.util.LinkedHashMap<>();
        for (Received r : received()) {
            first.putIfAbsent(r.delivery(), r);
        }
        return List.copyOf(first.values());
    }

    /** Waits until {@code count} distinct deliveries arrived, at most {@code within}; returns them all. */
    public List<Received> awaitDeliveries(int count, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (deliveries().size() < count && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return deliveries();
    }

    /** A URL at which nothing listens: a port just taken and given back. */
    public static String nobodyListening() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return "http://127.0.0.1:" + socket.getLocalPort() + "/gone";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
