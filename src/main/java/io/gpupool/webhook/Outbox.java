package io.gpupool.webhook;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Committed;
import io.gpupool.store.WorkingSet;
import io.gpupool.store.WriterLock;
import io.gpupool.store.row.DecisionLogRepository;
import io.gpupool.store.row.DecisionLogRow;
import io.gpupool.store.row.LeaseRepository;
import io.gpupool.store.row.LeaseRow;
import io.gpupool.store.row.RuleNamesCodec;
import io.gpupool.store.row.WebhookDeliveryRepository;
import io.gpupool.store.row.WebhookDeliveryRow;
import io.gpupool.store.row.WebhookOutboxCursorRepository;
import io.gpupool.store.row.WebhookOutboxCursorRow;
import io.gpupool.store.row.WebhookRow;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Value;
import io.micronaut.runtime.event.annotation.EventListener;
import io.micronaut.transaction.TransactionOperations;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The durable outbox of webhook deliveries, derived from the decision log after it commits. The
 * decision log is written in the same transaction as every change it explains, so an event that
 * happened is in it; a cursor row says up to which entry deliveries were derived, and moves in the
 * same transaction as the deliveries it derived. A crash at any point loses no event (the log has
 * it, the cursor has not passed it) and doubles none (the cursor and the deliveries commit
 * together; the unique key on webhook and decision guards it too). The writer pays nothing but
 * this listener's look at its decisions, O(decisions) and no I/O: derivation runs here, on a
 * thread of its own, after the commit, and the senders ({@link Deliverer}) on theirs.
 * docs/architecture.md, "Webhooks".
 */
@Context
public class Outbox {
    static final String PENDING = "PENDING";
    static final int BATCH = 500;
    private static final Logger LOG = LoggerFactory.getLogger(Outbox.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Webhooks webhooks;
    private final Deliverer deliverer;
    private final DecisionLogRepository decisions;
    private final LeaseRepository leases;
    private final WebhookDeliveryRepository deliveries;
    private final WebhookOutboxCursorRepository cursor;
    private final WorkingSet workingSet;
    private final WriterLock writerLock;
    private final TransactionOperations<Connection> tx;
    private final WebhookSettings settings;
    private final Duration grace;
    private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "gpupool-webhook-outbox");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean queued = new AtomicBoolean();
    private volatile boolean stopping;

    Outbox(Webhooks webhooks, Deliverer deliverer, DecisionLogRepository decisions, LeaseRepository leases,
           WebhookDeliveryRepository deliveries, WebhookOutboxCursorRepository cursor, WorkingSet workingSet,
           WriterLock writerLock, TransactionOperations<Connection> tx, WebhookSettings settings,
           @Value("${gpupool.preemption.grace:30s}") Duration grace) {
        this.webhooks = webhooks;
        this.deliverer = deliverer;
        this.decisions = decisions;
        this.leases = leases;
        this.deliveries = deliveries;
        this.cursor = cursor;
        this.workingSet = workingSet;
        this.writerLock = writerLock;
        this.tx = tx;
        this.settings = settings;
        this.grace = grace;
    }

    @PostConstruct
    void start() {
        webhooks.all(); // loaded here, so the listener below never reads the database on the writer's thread
        if (settings.enabled) {
            long every = settings.poll.toMillis();
            worker.scheduleWithFixedDelay(this::runQueued, 0, every, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * On the committing thread, under the writer lock: only looks whether the commit logged an
     * event while some webhook exists, and if so asks for a derivation (coalesced with one waiting).
     */
    @EventListener
    void onCommitted(Committed change) {
        if (!settings.enabled || stopping || webhooks.all().isEmpty()) {
            return;
        }
        for (LoggedDecision d : change.decisions()) {
            if (WebhookEvent.of(d.action()).isPresent()) {
                deriveSoon();
                return;
            }
        }
    }

    void deriveSoon() {
        if (!stopping && queued.compareAndSet(false, true)) {
            try {
                worker.execute(this::runQueued);
            } catch (RejectedExecutionException stopped) {
                queued.set(false);
            }
        }
    }

    private void runQueued() {
        queued.set(false);
        if (stopping) {
            return;
        }
        try {
            int scanned;
            do {
                scanned = deriveBatch();
            } while (scanned == BATCH && !stopping);
        } catch (RuntimeException e) {
            // The cursor did not move: the next run derives the same entries again.
            LOG.error("Deriving webhook deliveries failed; retried at the next commit or poll: {}", e.getMessage(), e);
        }
    }

    /**
     * Derives the deliveries of the next entries of the decision log and moves the cursor past
     * them, in one transaction; returns how many entries it looked at. With no webhook at all it
     * only moves the cursor to the newest entry: a webhook registered later gets no old events.
     */
    int deriveBatch() {
        long from = cursor.findById(1).map(WebhookOutboxCursorRow::lastDecisionId).orElse(0L);
        Map<String, WebhookRow> hooks = webhooks.all();
        if (hooks.isEmpty()) {
            long last = decisions.lastId();
            if (last > from) {
                fenced(() -> cursor.update(new WebhookOutboxCursorRow(1, last)));
            }
            return 0;
        }
        List<DecisionLogRow> entries = decisions.after(from, BATCH);
        if (entries.isEmpty()) {
            return 0;
        }
        PoolSnapshot snapshot = workingSet.current();
        List<WebhookDeliveryRow> out = new ArrayList<>();
        for (DecisionLogRow entry : entries) {
            Optional<WebhookEvent> event = WebhookEvent.of(DecisionAction.valueOf(entry.action()));
            if (event.isEmpty() || entry.tenantId() == null) {
                continue;
            }
            List<WebhookRow> subscribed = subscribers(hooks, snapshot, entry, event.get());
            if (subscribed.isEmpty()) {
                continue;
            }
            Map<String, Object> body = payload(entry, event.get(), snapshot);
            for (WebhookRow hook : subscribed) {
                String id = UUID.randomUUID().toString();
                Map<String, Object> withId = new LinkedHashMap<>();
                withId.put("deliveryId", id);
                withId.putAll(body);
                out.add(new WebhookDeliveryRow(id, hook.id(), entry.id(), event.get().wireName(), json(withId), PENDING, 0,
                        entry.at(), entry.at(), entry.at(), null, null, null));
            }
        }
        long last = entries.get(entries.size() - 1).id();
        fenced(() -> {
            deliveries.saveAll(out);
            cursor.update(new WebhookOutboxCursorRow(1, last));
        });
        if (!out.isEmpty()) {
            deliverer.wake();
        }
        return entries.size();
    }

    /**
     * The webhooks told about {@code entry}: those of its tenant and of the tenants above it (an org's
     * webhook hears its teams, as an org's token reaches them), subscribed to its event, and
     * registered by the time it was decided.
     */
    private static List<WebhookRow> subscribers(Map<String, WebhookRow> hooks, PoolSnapshot snapshot, DecisionLogRow entry,
                                                WebhookEvent event) {
        List<String> tenants = new ArrayList<>();
        tenants.add(entry.tenantId());
        for (Tenant t : snapshot.lineage(entry.tenantId())) {
            if (!tenants.contains(t.id())) {
                tenants.add(t.id());
            }
        }
        List<WebhookRow> subscribed = new ArrayList<>();
        for (WebhookRow hook : hooks.values()) {
            if (tenants.contains(hook.tenantId()) && !entry.at().isBefore(hook.createdAt())
                    && Webhooks.eventsOf(hook).contains(event)) {
                subscribed.add(hook);
            }
        }
        subscribed.sort(java.util.Comparator.comparing(WebhookRow::id));
        return subscribed;
    }

    /**
     * What the receiver is told, the decision's explanation included. For a notice or a preemption
     * the request named is the lease's own (the decision names the one it was preempted for).
     */
    private Map<String, Object> payload(DecisionLogRow entry, WebhookEvent event, PoolSnapshot snapshot) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("event", event.wireName());
        body.put("eventId", "decision-" + entry.id());
        body.put("occurredAt", entry.at().toString());
        body.put("tenant", entry.tenantId());
        String requestId = entry.requestId();
        Lease live = entry.leaseId() == null ? null : snapshot.lease(entry.leaseId()).orElse(null);
        if (event == WebhookEvent.NOTICE || event == WebhookEvent.PREEMPTED) {
            requestId = live != null ? live.requestId()
                    : entry.leaseId() == null ? null : leases.findById(entry.leaseId()).map(LeaseRow::requestId).orElse(null);
        }
        body.put("requestId", requestId);
        body.put("leaseId", entry.leaseId());
        List<String> rules = RuleNamesCodec.decode(entry.ruleNames());
        body.put("ruleName", rules.isEmpty() ? null : rules.get(0));
        body.put("ruleNames", rules);
        body.put("policyVersion", entry.policyVersion());
        body.put("reasonCode", entry.reasonCode());
        body.put("message", entry.message());
        if (event == WebhookEvent.NOTICE) {
            // The grace period's end: the lease's while it is under notice; once ended, as the notice set it.
            Instant deadline = live != null && live.state() == LeaseState.PREEMPTING && live.deadline() != null
                    ? live.deadline() : entry.at().plus(grace);
            body.put("deadline", deadline.toString());
        }
        if (event == WebhookEvent.PLACED) {
            body.put("queuedBefore", entry.requestId() != null && decisions.queuedBefore(entry.requestId(), entry.id()) > 0);
        }
        return body;
    }

    private static String json(Map<String, Object> body) {
        try {
            return JSON.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a map of strings, lists and booleans is always JSON", e);
        }
    }

    private void fenced(Runnable write) {
        writerLock.ensureHeld();
        tx.executeWrite(status -> {
            writerLock.confirm(status.getConnection());
            write.run();
            return null;
        });
    }

    @PreDestroy
    void stop() throws InterruptedException {
        stopping = true;
        worker.shutdown();
        if (!worker.awaitTermination(30, TimeUnit.SECONDS)) {
            worker.shutdownNow();
        }
    }
}
