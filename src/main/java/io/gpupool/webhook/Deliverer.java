package io.gpupool.webhook;

import io.gpupool.store.WriterLock;
import io.gpupool.store.row.WebhookAttemptRepository;
import io.gpupool.store.row.WebhookAttemptRow;
import io.gpupool.store.row.WebhookDeliveryRepository;
import io.gpupool.store.row.WebhookDeliveryRow;
import io.gpupool.store.row.WebhookRow;
import io.gpupool.problem.FieldChecks;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micronaut.transaction.TransactionOperations;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends due deliveries, on threads of its own ({@code gpupool.webhooks.senders}), with the JDK's
 * HTTP client: a signed POST of the stored body, a bounded connect and answer time, redirects
 * never followed. A 2xx answer delivers; anything else (another status, a timeout, a refused
 * connection or address) is a failed attempt, tried again after {@link Backoff} until
 * {@code max-attempts} or {@code max-age}, then DEAD. Each attempt is logged with the delivery's new
 * state in one transaction. A delivery sent but not yet recorded when the process dies is sent
 * again after the restart: delivery is at least once, and receivers deduplicate on
 * {@code X-Gpupool-Delivery}.
 */
@Singleton
public class Deliverer {
    static final String DELIVERED = "DELIVERED";
    static final String DEAD = "DEAD";
    static final int MAX_ERROR = 512;
    private static final Logger LOG = LoggerFactory.getLogger(Deliverer.class);

    private final Webhooks webhooks;
    private final WebhookDeliveryRepository deliveries;
    private final WebhookAttemptRepository attempts;
    private final WriterLock writerLock;
    private final TransactionOperations<Connection> tx;
    private final Clock clock;
    private final WebhookSettings settings;
    private final PrometheusMeterRegistry registry;
    private final Map<List<String>, Counter> outcomes = new ConcurrentHashMap<>();
    private final HttpClient http;
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "gpupool-webhook-poll");
        t.setDaemon(true);
        return t;
    });
    private final ExecutorService senders;
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean queued = new AtomicBoolean();
    private volatile boolean stopping;

    Deliverer(Webhooks webhooks, WebhookDeliveryRepository deliveries, WebhookAttemptRepository attempts,
              WriterLock writerLock, TransactionOperations<Connection> tx, Clock clock, WebhookSettings settings,
              PrometheusMeterRegistry registry) {
        this.webhooks = webhooks;
        this.deliveries = deliveries;
        this.attempts = attempts;
        this.writerLock = writerLock;
        this.tx = tx;
        this.clock = clock;
        this.settings = settings;
        this.registry = registry;
        this.http = HttpClient.newBuilder().connectTimeout(settings.connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER).build();
        AtomicInteger n = new AtomicInteger();
        this.senders = Executors.newFixedThreadPool(settings.senders, r -> {
            Thread t = new Thread(r, "gpupool-webhook-send-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        for (WebhookEvent event : WebhookEvent.values()) {
            for (String outcome : List.of("delivered", "failed", "dead")) {
                counter(event.wireName(), outcome); // exported from zero
            }
        }
    }

    @PostConstruct
    void start() {
        if (settings.enabled) {
            long every = settings.poll.toMillis();
            poller.scheduleWithFixedDelay(this::pollQueued, every, every, TimeUnit.MILLISECONDS);
        }
    }

    /** Looks for due deliveries soon (coalesced with a look already waiting). */
    void wake() {
        if (settings.enabled && !stopping && queued.compareAndSet(false, true)) {
            try {
                poller.execute(this::pollQueued);
            } catch (RejectedExecutionException stopped) {
                queued.set(false);
            }
        }
    }

    private void pollQueued() {
        queued.set(false);
        if (stopping) {
            return;
        }
        try {
            for (WebhookDeliveryRow due : deliveries.due(clock.instant(), 100)) {
                if (inFlight.add(due.id())) {
                    try {
                        senders.execute(() -> {
                            try {
                                sendPolled(due);
                            } catch (RuntimeException e) {
                                LOG.error("Recording webhook delivery {} failed; it is tried again: {}", due.id(), e.getMessage(), e);
                            } finally {
                                inFlight.remove(due.id());
                            }
                        });
                    } catch (RejectedExecutionException stopped) {
                        inFlight.remove(due.id());
                        return;
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.error("Looking for due webhook deliveries failed: {}", e.getMessage(), e);
        }
    }

    /** Attempts the delivery a poll read, if it still stands as read ({@link #stillDue}). */
    void sendPolled(WebhookDeliveryRow polled) {
        stillDue(polled).ifPresent(this::attempt);
    }

    /**
     * The delivery as it stands now, if it is still the one {@code polled} read and still due. A poll
     * reads up to a hundred due rows at once and hands them to the senders one by one: by the time a
     * row's turn comes, a sender handed it by an earlier poll may have attempted it and recorded the
     * attempt (and left the in-flight set), and sending the row as polled would repeat that attempt
     * under the same number.
     */
    private java.util.Optional<WebhookDeliveryRow> stillDue(WebhookDeliveryRow polled) {
        return deliveries.findById(polled.id()).filter(current -> Outbox.PENDING.equals(current.state())
                && current.attempts() == polled.attempts() && current.dueSince().equals(polled.dueSince())
                && (current.nextAttemptAt() == null || !current.nextAttemptAt().isAfter(clock.instant())));
    }

    /** One attempt: send, then record what came of it. */
    void attempt(WebhookDeliveryRow delivery) {
        WebhookRow hook = webhooks.find(delivery.webhookId()).orElse(null);
        if (hook == null) {
            return; // deleted meanwhile, and its deliveries with it
        }
        Instant at = clock.instant();
        long started = System.nanoTime();
        Integer status = null;
        String error;
        try {
            URI uri = URI.create(hook.url());
            String refused = WebhookTarget.refusedHost(uri.getHost(), settings.allowLoopback);
            if (refused != null) {
                error = "not sent: " + refused;
            } else {
                status = send(hook, delivery, uri);
                error = status / 100 == 2 ? null : "HTTP " + status;
            }
        } catch (HttpTimeoutException e) {
            error = "no answer within " + settings.requestTimeout + " (" + e.getMessage() + ")";
        } catch (IOException | IllegalArgumentException e) {
            error = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return; // shutting down: the delivery stays due and is sent after the restart
        }
        record(delivery, at, status, error, Duration.ofNanos(System.nanoTime() - started).toMillis());
    }

    private int send(WebhookRow hook, WebhookDeliveryRow delivery, URI uri) throws IOException, InterruptedException {
        byte[] body = delivery.payload().getBytes(StandardCharsets.UTF_8);
        long timestamp = clock.instant().getEpochSecond();
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(settings.requestTimeout)
                .header("Content-Type", "application/json")
                .header("User-Agent", "gpupool-webhooks/1")
                .header("X-Gpupool-Event", delivery.event())
                .header("X-Gpupool-Delivery", delivery.id())
                .header("X-Gpupool-Webhook", hook.id())
                .header("X-Gpupool-Timestamp", Long.toString(timestamp))
                .header("X-Gpupool-Signature", Signature.sign(hook.secret(), timestamp, body))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream ignored = response.body()) {
            return response.statusCode(); // the body is not read: a receiver cannot keep a sender busy with it
        }
    }

    /**
     * Logs the attempt and moves the delivery on: DELIVERED on success; otherwise its next attempt
     * after the backoff, or DEAD when that would be past the attempts or the age allowed. A
     * delivery redelivered while this attempt was under way keeps its new series.
     */
    private void record(WebhookDeliveryRow sent, Instant at, Integer status, String error, long millis) {
        int number = sent.attempts() + 1;
        Instant now = clock.instant();
        String outcome;
        String state;
        Instant next = null;
        if (error == null) {
            state = DELIVERED;
            outcome = "delivered";
        } else {
            Duration wait = settings.backoff.after(number, ThreadLocalRandom.current().nextDouble());
            boolean tooOld = now.plus(wait).isAfter(sent.dueSince().plus(settings.maxAge));
            if (number >= settings.maxAttempts || tooOld) {
                state = DEAD;
                outcome = "dead";
            } else {
                state = Outbox.PENDING;
                outcome = "failed";
                next = now.plus(wait);
            }
        }
        String clipped = error == null ? null : FieldChecks.clip(error, MAX_ERROR - 40);
        WebhookDeliveryRow moved = new WebhookDeliveryRow(sent.id(), sent.webhookId(), sent.decisionId(), sent.event(),
                sent.payload(), state, number, sent.createdAt(), sent.dueSince(), next, at, status, clipped);
        try {
            writerLock.ensureHeld();
            tx.executeWrite(s -> {
                writerLock.confirm(s.getConnection());
                WebhookDeliveryRow current = deliveries.findById(sent.id()).orElse(null);
                if (current == null) {
                    return null; // its webhook was deleted
                }
                attempts.save(new WebhookAttemptRow(null, sent.id(), number, at, status, clipped, millis));
                if (current.dueSince().equals(sent.dueSince())) {
                    deliveries.update(moved);
                }
                return null;
            });
        } catch (RuntimeException e) {
            LOG.warn("Webhook delivery {} attempt {} not recorded ({}); it is sent again", sent.id(), number, e.getMessage());
            return;
        }
        counter(sent.event(), outcome).increment();
    }

    private Counter counter(String event, String outcome) {
        return outcomes.computeIfAbsent(List.of(event, outcome), k -> Counter.builder("gpupool.webhook.deliveries")
                .description("Webhook delivery attempts by event and outcome: delivered, failed (tried again later) or dead (given up)")
                .tags("event", k.get(0), "outcome", k.get(1)).register(registry));
    }

    @PreDestroy
    void stop() throws InterruptedException {
        stopping = true;
        poller.shutdown();
        senders.shutdown();
        long wait = settings.requestTimeout.plus(settings.connectTimeout).toMillis() + 1_000;
        if (!senders.awaitTermination(wait, TimeUnit.MILLISECONDS)) {
            senders.shutdownNow();
        }
        poller.awaitTermination(5, TimeUnit.SECONDS);
    }
}
