package io.gpupool.webhook;

import io.gpupool.auth.Caller;
import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import io.gpupool.store.WriterLock;
import io.gpupool.store.row.WebhookAttemptRepository;
import io.gpupool.store.row.WebhookAttemptRow;
import io.gpupool.store.row.WebhookDeliveryRepository;
import io.gpupool.store.row.WebhookDeliveryRow;
import io.gpupool.store.row.WebhookRepository;
import io.gpupool.store.row.WebhookRow;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;

import java.security.SecureRandom;
import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A tenant's webhooks: register, list, read, rotate the secret, delete; and their delivery logs.
 * An admin reaches every tenant's, a tenant token its own tenant's and its teams' (as for every
 * other tenant-owned thing); a webhook out of reach answers 403 without naming its owner. Rows
 * are written outside the working set, each in a transaction of its own that, like every write,
 * commits only while this instance is the writer. The webhooks are also kept in memory for the
 * outbox and the senders, replaced after each change.
 */
@Singleton
public class Webhooks {
    static final int MAX_DESCRIPTION = 256;
    static final int MAX_TENANT = 128;
    static final int MAX_ID = 64;
    static final int MAX_PAGE = 200;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final WebhookRepository hooks;
    private final WebhookDeliveryRepository deliveries;
    private final WebhookAttemptRepository attempts;
    private final WorkingSet workingSet;
    private final WriterLock writerLock;
    private final TransactionOperations<Connection> tx;
    private final Clock clock;
    private final WebhookSettings settings;
    private volatile Map<String, WebhookRow> byId;

    Webhooks(WebhookRepository hooks, WebhookDeliveryRepository deliveries, WebhookAttemptRepository attempts,
             WorkingSet workingSet, WriterLock writerLock, TransactionOperations<Connection> tx, Clock clock,
             WebhookSettings settings) {
        this.hooks = hooks;
        this.deliveries = deliveries;
        this.attempts = attempts;
        this.workingSet = workingSet;
        this.writerLock = writerLock;
        this.tx = tx;
        this.clock = clock;
        this.settings = settings;
    }

    public WebhookSecret create(String tenantId, String url, List<String> events, String description, Caller caller) {
        FieldChecks checks = new FieldChecks();
        if (checks.text("tenant", tenantId) && checks.maxLength("tenant", tenantId, MAX_TENANT)) {
            wellFormed(checks, "tenant", tenantId);
        }
        if (url != null && checks.maxLength("url", url, WebhookTarget.MAX_URL) && wellFormed(checks, "url", url)) {
            WebhookTarget.check(checks, url, settings.allowLoopback);
        } else if (url == null) {
            checks.error("url: is required");
        }
        Set<WebhookEvent> subscribed = events(checks, events);
        if (checks.maxLength("description", description, MAX_DESCRIPTION) && description != null) {
            wellFormed(checks, "description", description);
        }
        checks.throwIfAny("Webhook not registered");
        PoolSnapshot snapshot = workingSet.current();
        caller.requireReach(tenantId, snapshot);
        if (snapshot.tenant(tenantId).isEmpty()) {
            throw ProblemException.notFound("tenant", tenantId);
        }
        if (hooks.countByTenantId(tenantId) >= settings.perTenant) {
            throw ProblemException.conflict("Tenant '" + FieldChecks.excerpt(tenantId) + "' already has "
                    + settings.perTenant + " webhooks (gpupool.webhooks.per-tenant); delete one first");
        }
        Instant now = clock.instant();
        String secret = newSecret();
        WebhookRow row = new WebhookRow(UUID.randomUUID().toString(), tenantId, url,
                subscribed.stream().map(WebhookEvent::wireName).collect(Collectors.joining(",")), secret,
                description, FieldChecks.clip(caller.principal(), 256), now, now);
        fenced(() -> hooks.save(row));
        return new WebhookSecret(view(row), secret);
    }

    /** The webhooks the caller reaches, of {@code tenantId} only when given. */
    public List<WebhookView> list(String tenantId, Caller caller) {
        PoolSnapshot snapshot = workingSet.current();
        if (tenantId != null) {
            caller.requireReach(tenantId, snapshot);
        }
        return all().values().stream()
                .filter(h -> tenantId == null || h.tenantId().equals(tenantId))
                .filter(h -> caller.reaches(h.tenantId(), snapshot))
                .sorted(java.util.Comparator.comparing(WebhookRow::createdAt).thenComparing(WebhookRow::id))
                .map(Webhooks::view).toList();
    }

    public WebhookView get(String id, Caller caller) {
        return view(reachable(id, caller));
    }

    public WebhookView delete(String id, Caller caller) {
        WebhookRow row = reachable(id, caller);
        fenced(() -> hooks.deleteById(row.id()));
        return view(row);
    }

    /** A new secret replaces the old one at once: attempts from now on are signed with it. */
    public WebhookSecret rotateSecret(String id, Caller caller) {
        WebhookRow row = reachable(id, caller);
        String secret = newSecret();
        WebhookRow rotated = new WebhookRow(row.id(), row.tenantId(), row.url(), row.events(), secret, row.description(),
                row.createdBy(), row.createdAt(), clock.instant());
        fenced(() -> hooks.update(rotated));
        return new WebhookSecret(view(rotated), secret);
    }

    /** The delivery log of a webhook, newest first, with each delivery's attempts. */
    public List<DeliveryView> deliveries(String id, String state, int limit, Caller caller) {
        WebhookRow row = reachable(id, caller);
        if (limit < 1 || limit > MAX_PAGE) {
            throw ProblemException.invalid("limit: must be between 1 and " + MAX_PAGE + ", was " + limit);
        }
        List<WebhookDeliveryRow> rows;
        if (state == null) {
            rows = deliveries.newestOf(row.id(), limit);
        } else {
            String upper = state.toUpperCase(java.util.Locale.ROOT);
            if (!Set.of(Outbox.PENDING, Deliverer.DELIVERED, Deliverer.DEAD).contains(upper)) {
                throw ProblemException.invalid("state: one of pending, delivered, dead; got '" + FieldChecks.excerpt(state) + "'");
            }
            rows = deliveries.newestOf(row.id(), upper, limit);
        }
        Map<String, List<WebhookAttemptRow>> tries = rows.isEmpty() ? Map.of()
                : attempts.findByDeliveryIdInListOrderByAt(rows.stream().map(WebhookDeliveryRow::id).toList()).stream()
                .collect(Collectors.groupingBy(WebhookAttemptRow::deliveryId));
        return rows.stream().map(d -> view(d, tries.getOrDefault(d.id(), List.of()))).toList();
    }

    public DeliveryView delivery(String id, String deliveryId, Caller caller) {
        WebhookRow row = reachable(id, caller);
        WebhookDeliveryRow d = deliveryOf(row, deliveryId);
        return view(d, attempts.findByDeliveryIdInListOrderByAt(List.of(d.id())));
    }

    /**
     * Sends a delivery again, whatever became of it: a new series of attempts starts now, with the
     * full number of attempts and age allowed; the attempts before stay in the log.
     */
    public DeliveryView redeliver(String id, String deliveryId, Caller caller) {
        WebhookRow row = reachable(id, caller);
        WebhookDeliveryRow d = deliveryOf(row, deliveryId);
        Instant now = clock.instant();
        WebhookDeliveryRow again = new WebhookDeliveryRow(d.id(), d.webhookId(), d.decisionId(), d.event(), d.payload(),
                Outbox.PENDING, 0, d.createdAt(), now, now, d.lastAttemptAt(), d.lastStatus(), d.lastError());
        fenced(() -> deliveries.update(again));
        return view(again, attempts.findByDeliveryIdInListOrderByAt(List.of(d.id())));
    }

    /** Every webhook, by id (memory; loaded at first use, replaced after each change). */
    Map<String, WebhookRow> all() {
        Map<String, WebhookRow> current = byId;
        if (current == null) {
            synchronized (this) {
                if (byId == null) {
                    byId = load();
                }
                current = byId;
            }
        }
        return current;
    }

    Optional<WebhookRow> find(String id) {
        return Optional.ofNullable(all().get(id));
    }

    private Map<String, WebhookRow> load() {
        List<WebhookRow> rows = new ArrayList<>();
        hooks.findAll().forEach(rows::add);
        return rows.stream().collect(Collectors.toUnmodifiableMap(WebhookRow::id, Function.identity()));
    }

    private WebhookRow reachable(String id, Caller caller) {
        if (id == null || id.length() > MAX_ID) {
            throw ProblemException.notFound("webhook", id);
        }
        WebhookRow row = find(id).orElseThrow(() -> ProblemException.notFound("webhook", id));
        caller.requireReach(row.tenantId(), workingSet.current());
        return row;
    }

    private WebhookDeliveryRow deliveryOf(WebhookRow hook, String deliveryId) {
        if (deliveryId == null || deliveryId.length() > MAX_ID) {
            throw ProblemException.notFound("delivery", deliveryId);
        }
        return deliveries.findById(deliveryId).filter(d -> d.webhookId().equals(hook.id()))
                .orElseThrow(() -> ProblemException.notFound("delivery", deliveryId));
    }

    private static Set<WebhookEvent> events(FieldChecks checks, List<String> events) {
        Set<WebhookEvent> subscribed = new LinkedHashSet<>();
        if (events == null || events.isEmpty()) {
            checks.error("events: name at least one of " + wireNames());
            return subscribed;
        }
        if (events.size() > WebhookEvent.values().length) {
            checks.error("events: at most " + WebhookEvent.values().length + " names, got " + events.size());
            return subscribed;
        }
        for (int i = 0; i < events.size(); i++) {
            String name = events.get(i);
            Optional<WebhookEvent> event = name == null || name.length() > 16 ? Optional.empty() : WebhookEvent.parse(name);
            if (event.isEmpty()) {
                checks.error("events[" + i + "]: '" + FieldChecks.excerpt(name) + "' is not an event; one of " + wireNames());
            } else if (!subscribed.add(event.get())) {
                checks.error("events[" + i + "]: '" + event.get().wireName() + "' named twice");
            }
        }
        return subscribed;
    }

    private static String wireNames() {
        return Arrays.stream(WebhookEvent.values()).map(WebhookEvent::wireName).collect(Collectors.joining(", "));
    }

    private static boolean wellFormed(FieldChecks checks, String at, String value) {
        if (!FieldChecks.wellFormed(value)) {
            checks.error(at + ": is not valid Unicode (a lone surrogate)");
            return false;
        }
        return true;
    }

    private static String newSecret() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return "whsec_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** One write in a transaction of its own, committed only while this instance is the writer; memory follows. */
    private void fenced(Runnable write) {
        writerLock.ensureHeld();
        tx.executeWrite(status -> {
            writerLock.confirm(status.getConnection());
            write.run();
            return null;
        });
        synchronized (this) {
            byId = load();
        }
    }

    static List<WebhookEvent> eventsOf(WebhookRow row) {
        return Arrays.stream(row.events().split(",")).map(WebhookEvent::parse).flatMap(Optional::stream).toList();
    }

    static WebhookView view(WebhookRow row) {
        return new WebhookView(row.id(), row.tenantId(), row.url(), eventsOf(row).stream().map(WebhookEvent::wireName).toList(),
                row.description(), row.createdBy(), row.createdAt(), row.secretRotatedAt());
    }

    static DeliveryView view(WebhookDeliveryRow d, List<WebhookAttemptRow> tries) {
        return new DeliveryView(d.id(), d.webhookId(), d.event(), d.decisionId(), d.state(), d.attempts(), d.createdAt(),
                d.nextAttemptAt(), d.lastAttemptAt(), d.lastStatus(), d.lastError(),
                tries.stream().map(a -> new DeliveryView.Attempt(a.attemptNo(), a.at(), a.statusCode(), a.error(), a.millis()))
                        .toList(), d.payload());
    }
}
