package io.gpupool.request.scheduling;

import io.gpupool.request.AllocationService;
import io.gpupool.domain.lease.UsageSample;
import io.gpupool.domain.request.RequestState;
import io.gpupool.governance.ActivePolicy;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.lease.UsageRecorder;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.domain.inventory.Device;
import io.gpupool.store.Committed;
import io.micronaut.context.event.ApplicationEventListener;
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
import java.util.List;
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
        GracePeriods.endGracePeriods(ModelWriter.of(workingSet), allocation.pipeline(), clock.instant()).forEach(usage::forget);
    }

    /** The policy's reclamation sweep over the whole pool; each ordered lease is handled once. */
    void sweep(Instant now) {
        ReclaimSweep.sweep(ModelWriter.of(workingSet), engine, active.current().policy(), liveUsage(workingSet.current(), now), grace, now);
    }

    private List<io.gpupool.domain.lease.UsageSample> liveUsage(PoolSnapshot snapshot, Instant now) {
        return ReclaimSweep.usageOf(snapshot, usage, telemetry, now);
    }

    @PreDestroy
    void stop() {
        stopping = true;
        nudges.shutdownNow();
    }
}
