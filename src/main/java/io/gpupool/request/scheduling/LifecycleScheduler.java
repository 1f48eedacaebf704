package io.gpupool.request.scheduling;

import io.gpupool.request.AllocationService;
import io.gpupool.request.decision.Outcome;
import io.gpupool.request.decision.PolicyPipeline;
import io.gpupool.domain.lease.UsageSample;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.request.input.PolicyInputs;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.governance.ActivePolicy;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.domain.lease.Notice;
import io.gpupool.lease.UsageRecorder;
import io.gpupool.policy.decision.ReclaimCause;
import io.gpupool.policy.decision.ReclaimOrder;
import io.gpupool.policy.engine.ReclaimRules;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.fact.UsageWindow;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.domain.inventory.Device;
import io.gpupool.store.Changes;
import io.gpupool.store.Committed;
import io.micronaut.context.event.ApplicationEventListener;
import io.gpupool.store.Mutation;
import io.gpupool.store.WorkingSet;
import io.micronaut.context.annotation.Value;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The scheduling loop: ends grace periods that ran out (victims' GPUs are taken), runs the
 * policy's reclamation sweep (TTL, idle, stale heartbeats, borrowed capacity, unhealthy devices),
 * then retries the queues in policy order. Runs periodically and right after anything frees GPUs
 * ({@link #nudge()}); passes never overlap.
 */
@Singleton
public class LifecycleScheduler implements ApplicationEventListener<Committed> {
    private static final Logger LOG = LoggerFactory.getLogger(LifecycleScheduler.class);
    /** A pass woken for a deadline runs this long after it, so the deadline has passed on the clock. */
    private static final long DEADLINE_SLACK_MILLIS = 20;

    private final WorkingSet workingSet;
    private final AllocationService allocation;
    private final QueuePass queuePass;
    private final PolicyEngine engine;
    private final ActivePolicy active;
    private final UsageRecorder usage;
    private final io.gpupool.telemetry.DeviceTelemetry telemetry;
    private final Clock clock;
    private final Duration grace;
    private final Duration sweepEvery;
    private final boolean wakeAtDeadlines;
    private final boolean reactToCommits;
    private final ScheduledExecutorService nudges = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "gpupool-scheduler-nudge");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean nudgePending = new AtomicBoolean();
    /** The earliest grace deadline a pass is scheduled for (null: none). */
    private final AtomicReference<Instant> wakeScheduled = new AtomicReference<>();
    private volatile Instant lastSweep = Instant.EPOCH;
    private volatile boolean stopping;

    LifecycleScheduler(WorkingSet workingSet, AllocationService allocation, QueuePass queuePass, PolicyEngine engine,
                       ActivePolicy active,
                       UsageRecorder usage, io.gpupool.telemetry.DeviceTelemetry telemetry, Clock clock,
                       @Value("${gpupool.preemption.grace:30s}") Duration grace,
                       @Value("${gpupool.reclamation.interval:30s}") Duration sweepEvery,
                       @Value("${gpupool.scheduler.wake-at-deadlines:true}") boolean wakeAtDeadlines,
                       @Value("${gpupool.scheduler.react-to-commits:true}") boolean reactToCommits) {
        this.workingSet = workingSet;
        this.allocation = allocation;
        this.queuePass = queuePass;
        this.engine = engine;
        this.active = active;
        this.usage = usage;
        this.telemetry = telemetry;
        this.clock = clock;
        this.grace = grace;
        this.sweepEvery = sweepEvery;
        this.wakeAtDeadlines = wakeAtDeadlines;
        this.reactToCommits = reactToCommits;
    }

    @Scheduled(fixedDelay = "${gpupool.scheduler.interval:5s}", initialDelay = "${gpupool.scheduler.interval:5s}")
    void tick() {
        if (stopping) {
            return; // the context is closing: the database pool may already be gone
        }
        try {
            runOnce();
        } catch (RuntimeException e) {
            if (stopping) {
                return; // a pass a late commit woke, refused because the service is stopping
            }
            LOG.error("Scheduling pass failed; the next pass retries", e);
        }
    }

    /** Asks for a pass soon (after a release, a cancel, a health change); coalesces bursts. */
    private void nudge() {
        if (nudgePending.compareAndSet(false, true)) {
            nudges.submit(() -> {
                nudgePending.set(false);
                tick();
            });
        }
    }

    /**
     * Asks for a pass right after {@code deadline}, when a grace period ends, instead of at the next
     * periodic one (up to {@code gpupool.scheduler.interval} later): the preemptor gets its GPUs when
     * its notice said. A pass schedules the next deadline itself, so one wake-up at a time suffices.
     */
    private void wakeAt(Instant deadline) {
        Instant scheduled = wakeScheduled.get();
        if (!wakeAtDeadlines || stopping || deadline == null || (scheduled != null && !scheduled.isAfter(deadline))
                || !wakeScheduled.compareAndSet(scheduled, deadline)) {
            return; // off, or a wake-up at or before this deadline is coming and its pass schedules the next
        }
        long delayMillis = Math.max(0, Duration.between(clock.instant(), deadline).toMillis()) + DEADLINE_SLACK_MILLIS;
        nudges.schedule(() -> {
            wakeScheduled.compareAndSet(deadline, null);
            tick();
        }, delayMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Reacts to what the writer committed, whoever made it: a device whose health changed gets the
     * policy sweep soon; GPUs given back (a lease ended), a request that left the queue unplaced
     * (cancelled, or rejected once it could no longer be placed: a head's reservation may go with
     * it), new inventory or changed tenancy (a queued request may have become impossible) get a
     * pass soon; a lease put under notice gets a pass right after its grace period. Placing requests and renewing or
     * heartbeating leases frees nothing and asks for no pass, so passes do not wake themselves.
     */
    @Override
    public void onApplicationEvent(Committed change) {
        if (stopping || !reactToCommits) {
            return;
        }
        for (Device device : change.devices()) {
            Device was = change.before().device(device.id()).orElse(null);
            if (was != null && was.health() != device.health()) {
                sweepSoon();
                return;
            }
        }
        boolean freed = !change.devices().isEmpty() || !change.profiles().isEmpty() || change.tenancy()
                || change.leases().stream().anyMatch(l -> !l.state().holdsDevices())
                || change.requests().stream().anyMatch(r -> r.state() == RequestState.CANCELLED
                        || r.state() == RequestState.REJECTED && change.before().queued().containsKey(r.id()));
        change.leases().stream().filter(l -> l.state() == LeaseState.PREEMPTING && l.deadline() != null)
                .map(Lease::deadline).min(Instant::compareTo).ifPresent(this::wakeAt);
        if (freed) {
            nudge();
        }
    }

    /** A device went bad or similar: run the policy sweep in the next pass, and make that pass soon. */
    private void sweepSoon() {
        lastSweep = Instant.EPOCH;
        nudge();
    }

    /** One full pass; returns how many queued requests were placed. */
    public synchronized int runOnce() {
        endGracePeriods();
        Instant now = clock.instant();
        if (!now.isBefore(lastSweep.plus(sweepEvery))) {
            sweep(now);
            lastSweep = now;
        }
        int placed = queuePass.run();
        Instant after = clock.instant();
        workingSet.current().underNotice().values().stream().map(Lease::deadline)
                .filter(d -> d != null && d.isAfter(after)).min(Instant::compareTo).ifPresent(this::wakeAt);
        return placed;
    }

    /**
     * Leases whose notice ran out give their GPUs back: PREEMPTED for a waiting request, RECLAIMED
     * otherwise. A preemption's victims end together, in the commit that also retries the request
     * they were preempted for, so no request arriving in between can take the GPUs they give back.
     */
    public void endGracePeriods() {
        endGracePeriods(ModelWriter.of(workingSet), allocation.pipeline(), clock.instant()).forEach(usage::forget);
    }

    /**
     * The step itself, on whichever model: returns the leases whose grace period had run out at
     * {@code now} (each ended, or already gone). A dry-run calls it on uncommitted changes.
     */
    static List<String> endGracePeriods(ModelWriter model, PolicyPipeline pipeline, Instant now) {
        return endGracePeriods(model, pipeline, now, CHANGES_PER_WRITE);
    }

    /** As above, the leases nobody waits for ended {@code changesPerWrite} a write (tests compare with one a write). */
    static List<String> endGracePeriods(ModelWriter model, PolicyPipeline pipeline, Instant now, int changesPerWrite) {
        Map<String, List<String>> victimsOf = new LinkedHashMap<>(); // preemptor → its victims whose notice ran out
        List<String> reclaimed = new ArrayList<>();
        for (Lease lease : model.current().underNotice().values()) {
            if (lease.deadline() == null || lease.deadline().isAfter(now)) {
                continue;
            }
            String preemptor = lease.notice() == null ? null : lease.notice().forRequest();
            if (preemptor == null) {
                reclaimed.add(lease.id());
            } else {
                victimsOf.computeIfAbsent(preemptor, k -> new ArrayList<>()).add(lease.id());
            }
        }
        List<String> ended = new ArrayList<>();
        // Each ends on its own (no request waits for it): independent changes, stated a part at a time.
        inParts(model, reclaimed, changesPerWrite, part -> end(part, now));
        ended.addAll(reclaimed);
        victimsOf.forEach((preemptor, victims) -> {
            try {
                model.write(end(victims, now), done -> handOver(pipeline, preemptor, now));
            } catch (HandOverFailed e) {
                // A bug in the decision, say: the leases still end, and the request waits for the
                // scheduling pass, rather than the leases never ending.
                LOG.error("Handing leases {} to request {} failed; ending them alone", victims, preemptor, e);
                model.write(end(victims, now));
            }
            ended.addAll(victims);
        });
        return ended;
    }

    /**
     * Ends leases whose grace period ran out, logged with the explanation their notice kept:
     * PREEMPTED for the request it names, RECLAIMED when it names none. Returns how many it ended.
     */
    private static Mutation<Integer> end(List<String> leaseIds, Instant now) {
        return (before, changes) -> {
            int ended = 0;
            for (String leaseId : leaseIds) {
                Lease current = before.lease(leaseId).orElse(null);
                if (current == null || current.state() != LeaseState.PREEMPTING) {
                    continue;
                }
                Notice notice = current.notice();
                String preemptor = notice == null ? null : notice.forRequest();
                Lease gone = LeaseTransitions.end(current, preemptor != null ? LeaseState.PREEMPTED : LeaseState.RECLAIMED,
                        now);
                changes.update(gone).log(LoggedDecision.of(preemptor != null ? DecisionAction.PREEMPT : DecisionAction.RECLAIM,
                        preemptor != null ? preemptor : current.requestId(), current.id(), current.tenantId(),
                        notice == null ? List.of() : notice.ruleNames(), notice == null ? null : notice.policyVersion(),
                        notice == null ? "GRACE_ENDED" : notice.reasonCode(),
                        "Grace period ended at " + current.deadline() + "; GPUs taken back"), now);
                changes.endRequestOf(gone, now);
                ended++;
            }
            return ended;
        };
    }

    /** Retries {@code requestId} on the GPUs its victims just gave back, in their commit. */
    private static Mutation<Outcome> handOver(PolicyPipeline pipeline, String requestId, Instant now) {
        return (before, changes) -> {
            GpuRequest waiting = before.queued().get(requestId);
            if (waiting == null) {
                return null; // cancelled meanwhile, say
            }
            try {
                return pipeline.retry(before, changes, waiting, now, false);
            } catch (RuntimeException e) {
                throw new HandOverFailed(e);
            }
        };
    }

    /** The hand-over step failed, not the ending of the leases: they can still end alone. */
    private static final class HandOverFailed extends RuntimeException {
        HandOverFailed(RuntimeException cause) {
            super(cause);
        }
    }

    /** The policy's reclamation sweep over the whole pool; each ordered lease is handled once. */
    void sweep(Instant now) {
        sweep(ModelWriter.of(workingSet), engine, active.current().policy(), liveUsage(workingSet.current(), now), grace, now);
    }

    private List<io.gpupool.domain.lease.UsageSample> liveUsage(PoolSnapshot snapshot, Instant now) {
        return usageOf(snapshot, usage, telemetry, now);
    }

    /**
     * The usage samples a sweep reads: what holders said in their heartbeats and what node agents
     * measured on the leases' own GPUs (the facts trust the measurement wherever there is one).
     * The live sweep and the dry-run's both take them from here.
     */
    static List<io.gpupool.domain.lease.UsageSample> usageOf(PoolSnapshot snapshot, UsageRecorder usage,
                                                             io.gpupool.telemetry.DeviceTelemetry telemetry, Instant now) {
        List<io.gpupool.domain.lease.UsageSample> samples = new java.util.ArrayList<>(usage.all());
        samples.addAll(telemetry.leaseSamples(snapshot.leases().values(), now));
        return samples;
    }

    /**
     * The sweep on whichever model, with the usage samples it is given (the live sweep gives those
     * {@link UsageRecorder} keeps): returns the evaluation, whose reclaim plan it enforced (none
     * when the policy failed).
     */
    static Evaluation sweep(ModelWriter model, PolicyEngine engine, CompiledPolicy policy, Collection<UsageSample> usage,
                            Duration grace, Instant now) {
        return sweep(model, engine, policy, SnapshotFacts.of(model.current(), now, usage, UsageWindow.DEFAULT), grace, now);
    }

    /**
     * The same sweep on facts already derived for the model's current snapshot at {@code now} with the
     * usage samples it sees ({@code SnapshotFacts.of(model.current(), now, usage, UsageWindow.DEFAULT)}):
     * a dry-run derives them once for both of its sides.
     */
    static Evaluation sweep(ModelWriter model, PolicyEngine engine, CompiledPolicy policy, SnapshotFacts facts,
                            Duration grace, Instant now) {
        return sweep(model, engine, policy, facts, grace, now, false);
    }

    /**
     * As above; {@code requestsAlways} false leaves the pending requests out only where the policy's
     * compiled rules show no reclaiming rule reads them ({@link ReclaimRules#readNoRequest(CompiledPolicy)}):
     * the plan is the same, and a deep queue no longer makes each sweep a rule session over every
     * queued request (nor lets request rules spend the sweep's budget). True inserts them always
     * (the replay compares both ways).
     */
    static Evaluation sweep(ModelWriter model, PolicyEngine engine, CompiledPolicy policy, SnapshotFacts facts,
                            Duration grace, Instant now, boolean requestsAlways) {
        return sweep(model, engine, policy, facts, grace, now, requestsAlways, CHANGES_PER_WRITE);
    }

    /** As above, {@code changesPerWrite} reclaim orders a write (tests compare with one a write). */
    static Evaluation sweep(ModelWriter model, PolicyEngine engine, CompiledPolicy policy, SnapshotFacts facts,
                            Duration grace, Instant now, boolean requestsAlways, int changesPerWrite) {
        PoolSnapshot snapshot = model.current();
        if (facts.snapshot() != snapshot || !facts.now().equals(now)) {
            throw new IllegalArgumentException("The sweep's facts were derived for another snapshot or instant");
        }
        List<io.gpupool.policy.fact.RequestFact> pending = !requestsAlways && ReclaimRules.readNoRequest(policy) ? List.of()
                : snapshot.queued().values().stream().map(PolicyInputs::fact).toList();
        Evaluation evaluation = engine.sweep(policy, facts, pending);
        if (!evaluation.ok()) {
            LOG.error("Reclamation sweep not enforced: the policy failed: {}", evaluation.errors());
            return evaluation;
        }
        inParts(model, evaluation.reclaimPlan(), changesPerWrite, part -> (before, changes) -> {
            for (ReclaimOrder order : part) {
                reclaim(before, changes, order, grace, now);
            }
            return part.size();
        });
        return evaluation;
    }

    /**
     * How many independent lease changes of one step (a sweep's reclaim orders, the ends of grace
     * periods nobody waits for) one write states. Each change reads and changes only its own lease
     * (and that lease's request), so stating a part of them in one write leaves the model, the rows
     * and the decision log exactly as one write each would, in the same order; but it builds one
     * snapshot (and one delta, which derived inputs follow) per part instead of per lease: a sweep at
     * scale orders tens of thousands of reclaims (docs/performance.md, "Dry-run at scale"). Small
     * enough that a live write holds the writer no longer than a batch of ordinary writes does.
     */
    static final int CHANGES_PER_WRITE = 256;

    /**
     * Writes {@code items} {@code perWrite} at a time, each part as the one mutation {@code change}
     * makes of it. A part whose write fails (nothing of it was written) is written again one item at
     * a time, so what one write each would have made is made, up to the item that fails, which
     * throws as it would have: the same changes, in the same order, as one write per item.
     */
    static <T> void inParts(ModelWriter model, List<T> items, int perWrite,
                            java.util.function.Function<List<T>, Mutation<?>> change) {
        if (perWrite < 1) {
            throw new IllegalArgumentException("perWrite must be at least 1, was " + perWrite);
        }
        for (int from = 0; from < items.size(); from += perWrite) {
            List<T> part = List.copyOf(items.subList(from, Math.min(items.size(), from + perWrite)));
            if (part.size() == 1) {
                model.write(change.apply(part));
                continue;
            }
            try {
                model.write(change.apply(part));
            } catch (RuntimeException failed) {
                for (T item : part) {
                    model.write(change.apply(List.of(item)));
                }
            }
        }
    }

    /** One reclaim order: TTL and broken hardware end the lease now, anything else gives it notice. */
    private static Lease reclaim(PoolSnapshot before, Changes changes, ReclaimOrder order, Duration grace, Instant now) {
        Lease lease = before.lease(order.leaseId()).orElse(null);
        if (lease == null || lease.state() != LeaseState.ACTIVE) {
            return null;
        }
        boolean immediate = order.cause() == ReclaimCause.TTL_EXPIRED || order.cause() == ReclaimCause.UNHEALTHY_DEVICE;
        Lease changed = immediate ? LeaseTransitions.end(lease,
                order.cause() == ReclaimCause.TTL_EXPIRED ? LeaseState.EXPIRED : LeaseState.RECLAIMED, now)
                : LeaseTransitions.notice(lease, now.plus(grace),
                new Notice(null, List.of(order.ruleName()), order.policyVersion(), order.reasonCode()));
        changes.update(changed);
        DecisionAction action = order.cause() == ReclaimCause.TTL_EXPIRED ? DecisionAction.EXPIRE
                : immediate ? DecisionAction.RECLAIM : DecisionAction.NOTICE;
        LoggedDecision logged = LoggedDecision.of(action, lease.requestId(), lease.id(), lease.tenantId(),
                List.of(order.ruleName()), order.policyVersion(), order.reasonCode(), order.message()
                        + (immediate ? "" : "; GPUs are taken at " + changed.deadline()));
        changes.log(order.idleSeconds() < 0 ? logged : logged.withIdleSince(now.minusSeconds(order.idleSeconds())), now);
        if (order.cause() == ReclaimCause.UNHEALTHY_DEVICE) {
            requeue(changes, lease, order, now);
        } else if (immediate) {
            changes.endRequestOf(changed, now);
        }
        return changed;
    }

    /** Work lost to broken hardware goes back to the queue under its original request. */
    private static void requeue(Changes changes, Lease lease, ReclaimOrder order, Instant now) {
        changes.findRequest(lease.requestId()).filter(r -> r.state() == RequestState.PLACED).ifPresent(r -> {
            WhyPending why = new WhyPending(BlockedBy.CAPACITY, order.ruleName(), "REQUEUED_AFTER_DEVICE_FAILURE",
                    "Its lease " + lease.id() + " lost a device; waiting for healthy capacity", 0, lease.poolId(), null);
            GpuRequest again = r.with(RequestState.QUEUED, r.priority(), null, why, now);
            changes.update(again).log(LoggedDecision.of(DecisionAction.QUEUE, r.id(), lease.id(), r.tenantId(),
                    List.of(order.ruleName()), order.policyVersion(), why.reasonCode(), why.message()), now);
        });
    }

    @PreDestroy
    void stop() {
        stopping = true;
        nudges.shutdownNow();
    }
}
