package io.gpupool.simulation;

import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.UsageSample;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.fact.UsageSampleLog;
import io.gpupool.policy.profile.DeviceProfiles;
import io.gpupool.request.decision.Outcome;
import io.gpupool.request.scheduling.SimulatedScheduler;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * The event-driven replay of one workload under one policy, over simulated time: arrivals,
 * completions (a holder's release), cancels, the scheduler's periodic pass (with the sweep when it
 * is due, and the heartbeats and usage the sweep reads), the wake-up at each grace deadline and the
 * pass right after GPUs are given back — each at the instant the live service would run it, through
 * {@link SimulatedScheduler}, i.e. the service's own code. Nothing reads the wall clock or a database.
 * Events at one instant run in the order they were scheduled, so a run is deterministic for a given
 * workload, fleet and policy (up to the pass budget, which counts real time as live).
 */
public final class Simulation {
    /** The live scheduler wakes this long after a grace deadline ({@code LifecycleScheduler}). */
    private static final Duration DEADLINE_SLACK = Duration.ofMillis(20);
    /** How often progress is reported, in events (cancellation is asked after every event). */
    private static final int CHECK_EVERY = 2_000;

    /** Told of the simulated instant reached, and of the share of the window done (0..1). */
    public interface Progress {
        void at(Instant simulated, double done);

        Progress NONE = (simulated, done) -> { };
    }

    private enum Kind { ARRIVAL, CANCEL, COMPLETION, PASS, TICK, SAMPLE }

    private record Event(Instant at, long seq, Kind kind, String subject) {
    }

    private final PolicyEngine engine;
    private final SimulatedScheduler.Settings settings;
    private final Duration sampleEvery;
    private final boolean skipUnchanged;

    public Simulation(PolicyEngine engine, SimulatedScheduler.Settings settings, Duration sampleEvery) {
        this(engine, settings, sampleEvery, true);
    }

    /**
     * @param skipUnchanged false runs every periodic queue pass and sweep evaluation, as the live loop
     *                      does, even where they provably change nothing (the equivalence tests
     *                      compare both ways; {@link SimulatedScheduler#runOnce})
     */
    Simulation(PolicyEngine engine, SimulatedScheduler.Settings settings, Duration sampleEvery, boolean skipUnchanged) {
        this.engine = engine;
        this.settings = settings;
        this.sampleEvery = sampleEvery;
        this.skipUnchanged = skipUnchanged;
    }

    public PolicyRun run(String label, CompiledPolicy policy, PoolSnapshot fleet, Workload workload, Progress progress,
                         BooleanSupplier cancelled) {
        return new Run(label, policy, profiled(fleet, policy, workload.from()), workload).play(progress, cancelled);
    }

    /**
     * The fleet with the device profiles {@code policy} derives (tier, labels), as the service derives
     * them when a policy is activated: a candidate's tiering is part of what is compared.
     */
    private PoolSnapshot profiled(PoolSnapshot fleet, CompiledPolicy policy, Instant at) {
        DeviceProfiles.Derived derived = DeviceProfiles.derive(engine, policy, fleet, at);
        if (!derived.evaluation().ok()) {
            throw new IllegalStateException("Policy " + policy.version() + " failed deriving device profiles: "
                    + derived.evaluation().errors());
        }
        Changes changes = Changes.uncommitted(fleet);
        derived.profiles().values().stream().filter(p -> !p.sameAs(fleet.profiles().get(p.deviceId()))).forEach(changes::put);
        return changes.after();
    }

    /** One run's state: the event queue, the scheduler and what happened to each job. */
    private final class Run implements SimulatedScheduler.DecisionSink {
        private final PriorityQueue<Event> events = new PriorityQueue<>((a, b) -> a.at.equals(b.at)
                ? Long.compare(a.seq, b.seq) : a.at.compareTo(b.at));
        private final Workload workload;
        private final Map<String, Job> jobs = new HashMap<>();
        private final Map<String, JobFateBuilder> fates = new HashMap<>();
        /** Leases held at the start and the jobs placed since, by lease id: who holds it and since when. */
        private final Map<String, Lease> leases = new HashMap<>();
        private final Map<String, UsageSampleLog> usage = new HashMap<>();
        private final List<FleetSample> samples = new ArrayList<>();
        private final Map<String, Double> reclaimed = new java.util.TreeMap<>();
        private final SimulatedScheduler scheduler;
        private final String policyVersion;
        private final String label;
        private long seq;
        private long decisions;
        private int preemptions;
        private Instant deadlineWake;
        private boolean passPending;

        Run(String label, CompiledPolicy policy, PoolSnapshot fleet, Workload workload) {
            this.label = label;
            this.workload = workload;
            this.policyVersion = policy.version();
            this.scheduler = new SimulatedScheduler(engine, policy, settings, fleet, this, skipUnchanged);
            fleet.leases().values().forEach(l -> leases.put(l.id(), l));
        }

        PolicyRun play(Progress progress, BooleanSupplier cancelled) {
            for (Job job : workload.jobs()) {
                jobs.put(job.id(), job);
                fates.put(job.id(), new JobFateBuilder(job));
                schedule(job.arrival(), Kind.ARRIVAL, job.id());
                if (job.cancelledAt() != null) {
                    schedule(job.cancelledAt(), Kind.CANCEL, job.id());
                }
            }
            for (Lease held : leases.values()) {
                Job job = jobs.get(held.requestId());
                if (job != null && job.runsFor() != null) {
                    schedule(held.createdAt().plus(job.runsFor()), Kind.COMPLETION, held.id());
                }
            }
            schedule(workload.from(), Kind.TICK, null);
            schedule(workload.from(), Kind.SAMPLE, null);
            long window = Math.max(1, Duration.between(workload.from(), workload.to()).toMillis());
            long handled = 0;
            while (!events.isEmpty() && !events.peek().at.isAfter(workload.to())) {
                Event e = events.poll();
                handle(e);
                if (cancelled.getAsBoolean()) { // every event: a replay job paces itself here (ReplayJobs)
                    throw new CancellationException("Replay of " + label + " cancelled at " + e.at);
                }
                if (++handled % CHECK_EVERY == 0) {
                    progress.at(e.at, Math.min(1, Duration.between(workload.from(), e.at).toMillis() / (double) window));
                }
            }
            progress.at(workload.to(), 1);
            return finish();
        }

        private void handle(Event e) {
            switch (e.kind) {
                case ARRIVAL -> arrive(jobs.get(e.subject), e.at);
                case CANCEL -> {
                    if (scheduler.cancel(e.subject, e.at)) {
                        passSoon(e.at); // live: a request leaving the queue may free a head's reservation
                    }
                }
                case COMPLETION -> scheduler.release(e.subject, e.at).ifPresent(l -> passSoon(e.at));
                case PASS -> {
                    passPending = false;
                    scheduler.runOnce(e.at, () -> beatsAndUsage(e.at));
                }
                case TICK -> {
                    scheduler.runOnce(e.at, () -> beatsAndUsage(e.at));
                    schedule(e.at.plus(settings.passEvery()), Kind.TICK, null);
                }
                case SAMPLE -> {
                    samples.add(sample(e.at));
                    schedule(e.at.plus(sampleEvery), Kind.SAMPLE, null);
                }
            }
            scheduler.nextDeadline(e.at).ifPresent(d -> wakeAt(d, e.at));
        }

        private void arrive(Job job, Instant at) {
            GpuRequest ask = job.ask();
            Outcome outcome = scheduler.submit(ask, at);
            if (outcome.kind() == Outcome.Kind.REFUSED || outcome.kind() == Outcome.Kind.AWAITING_APPROVAL) {
                JobFateBuilder fate = fates.get(job.id());
                fate.outcome = outcome.kind() == Outcome.Kind.REFUSED ? JobFate.Outcome.REFUSED : JobFate.Outcome.AWAITING_APPROVAL;
                io.gpupool.domain.request.WhyPending why = outcome.request().whyPending();
                if (why != null) {
                    fate.explain(why.ruleName() == null ? List.of() : List.of(why.ruleName()), policyVersion,
                            why.reasonCode(), why.message());
                }
            }
        }

        /** As the live scheduler is nudged after GPUs are given back: one pass, now, however many asked. */
        private void passSoon(Instant at) {
            if (!passPending) {
                passPending = true;
                schedule(at, Kind.PASS, null);
            }
        }

        /** As the live scheduler: one wake-up at a time, at the earliest deadline; its pass asks for the next. */
        private void wakeAt(Instant deadline, Instant now) {
            boolean pending = deadlineWake != null && deadlineWake.plus(DEADLINE_SLACK).isAfter(now);
            if (pending && !deadlineWake.isAfter(deadline)) {
                return;
            }
            deadlineWake = deadline;
            schedule(deadline.plus(DEADLINE_SLACK), Kind.PASS, null);
        }

        private void schedule(Instant at, Kind kind, String subject) {
            events.add(new Event(at, seq++, kind, subject));
        }

        /**
         * What the sweep reads, asked just before it runs: every holder still heartbeating is heard
         * now, and those that report a utilisation add a sample; samples older than the usage window
         * (one hour, {@code UsageWindow.DEFAULT}) and a sweep are dropped.
         */
        private Map<String, List<UsageSample>> beatsAndUsage(Instant at) {
            PoolSnapshot model = scheduler.current();
            List<Lease> heard = new ArrayList<>();
            // by lease, oldest first, as kept: the sweep's facts read them so without regrouping
            Map<String, List<UsageSample>> all = new HashMap<>(usage.size() * 4 / 3 + 1);
            Instant oldest = at.minus(Duration.ofHours(1)).minus(settings.sweepEvery());
            for (Lease lease : model.leases().values()) {
                Job job = jobs.get(lease.requestId());
                if (job == null || job.heartbeatsFor() != null && at.isAfter(lease.createdAt().plus(job.heartbeatsFor()))) {
                    continue; // a lease of no replayed job, or a holder that went silent: it is heard no more
                }
                heard.add(lease);
                if (!Double.isNaN(job.utilisation())) {
                    UsageSampleLog kept = usage.computeIfAbsent(lease.id(), k -> new UsageSampleLog());
                    kept.append(new UsageSample(lease.id(), at, job.utilisation()));
                    kept.dropBefore(oldest);
                    all.put(lease.id(), kept.samples()); // shares the log's arrays: nothing copied per sweep
                }
            }
            scheduler.heartbeats(model, heard, at);
            return all;
        }

        @Override
        public void logged(LoggedDecision d, Instant at) {
            decisions++;
            JobFateBuilder fate = d.requestId() == null ? null : fates.get(d.requestId());
            switch (d.action()) {
                case ADMIT -> {
                    Lease lease = scheduler.current().lease(d.leaseId()).orElse(null);
                    if (fate != null && lease != null) {
                        fate.placed(at, modelOf(lease), lease, d);
                        leases.put(lease.id(), lease);
                        Job job = jobs.get(d.requestId());
                        if (job.runsFor() != null) {
                            schedule(at.plus(job.runsFor()), Kind.COMPLETION, lease.id());
                        }
                    }
                }
                case QUEUE, REJECT -> {
                    if (fate != null && fate.placedAt == null) {
                        fate.outcome = d.action() == io.gpupool.domain.decision.DecisionAction.REJECT
                                ? JobFate.Outcome.REJECTED : JobFate.Outcome.QUEUED;
                        fate.explain(d.ruleNames(), d.policyVersion(), d.reasonCode(), d.message());
                    }
                }
                case CANCEL -> {
                    if (fate != null && fate.placedAt == null) {
                        fate.outcome = JobFate.Outcome.CANCELLED;
                    }
                }
                case PREEMPT, RECLAIM, EXPIRE -> leaseTakenBack(d, at);
                case RELEASE -> ended(d.leaseId(), JobFate.End.RELEASED, at, null);
                default -> { }
            }
        }

        private void leaseTakenBack(LoggedDecision d, Instant at) {
            Lease lease = leases.remove(d.leaseId());
            if (lease == null) {
                return;
            }
            usage.remove(lease.id());
            double gpus = lease.totalMilli() / 1000.0;
            String rule = d.ruleNames().isEmpty() ? d.reasonCode() : String.join(" + ", d.ruleNames());
            JobFateBuilder victim = fates.get(lease.requestId());
            switch (d.action()) {
                case PREEMPT -> {
                    preemptions++;
                    double lost = gpus * hours(lease.createdAt(), at);
                    if (victim != null) {
                        victim.lostGpuHours += lost;
                        victim.end(JobFate.End.PREEMPTED, at, d);
                    }
                }
                case RECLAIM, EXPIRE -> {
                    Job job = jobs.get(lease.requestId());
                    Instant wouldRelease = job == null || job.runsFor() == null ? workload.to()
                            : min(workload.to(), lease.createdAt().plus(job.runsFor()));
                    reclaimed.merge(rule, gpus * Math.max(0, hours(at, wouldRelease)), Double::sum);
                    if (victim != null) {
                        victim.end(d.action() == io.gpupool.domain.decision.DecisionAction.EXPIRE
                                ? JobFate.End.EXPIRED : JobFate.End.RECLAIMED, at, d);
                    }
                }
                default -> { }
            }
        }

        private void ended(String leaseId, JobFate.End end, Instant at, LoggedDecision d) {
            Lease lease = leases.remove(leaseId);
            usage.remove(leaseId);
            if (lease != null && fates.containsKey(lease.requestId())) {
                fates.get(lease.requestId()).end(end, at, d);
            }
        }

        private String modelOf(Lease lease) {
            return lease.shares().isEmpty() ? null
                    : scheduler.current().device(lease.shares().get(0).deviceId()).map(Device::model).orElse(null);
        }

        private FleetSample sample(Instant at) {
            PoolSnapshot now = scheduler.current();
            Map<String, long[]> byNode = new HashMap<>(); // node → {capacity, used}
            long capacity = 0;
            long used = 0;
            for (Device device : now.devices().values()) {
                if (device.health() != io.gpupool.domain.inventory.DeviceHealth.HEALTHY) {
                    continue;
                }
                long deviceUsed = Math.min(1000, now.usedMilli(device.id()));
                long[] node = byNode.computeIfAbsent(device.nodeId(), k -> new long[2]);
                node[0] += 1000;
                node[1] += deviceUsed;
                capacity += 1000;
                used += deviceUsed;
            }
            long free = capacity - used;
            long stranded = 0;
            for (long[] node : byNode.values()) {
                if (node[1] > 0) {
                    stranded += node[0] - node[1];
                }
            }
            double effectiveMilli = 0;
            boolean anyReported = false;
            for (Lease lease : now.leases().values()) {
                Job job = jobs.get(lease.requestId());
                if (job != null && !Double.isNaN(job.utilisation())) {
                    anyReported = true;
                    effectiveMilli += lease.totalMilli() * job.utilisation();
                }
            }
            return new FleetSample(at, capacity == 0 ? 0 : used / (double) capacity,
                    !anyReported || capacity == 0 ? Double.NaN : effectiveMilli / capacity,
                    free == 0 ? 0 : stranded / (double) free, now.queued().size());
        }

        private PolicyRun finish() {
            List<JobFate> out = new ArrayList<>(workload.jobs().size());
            for (Job job : workload.jobs()) {
                out.add(fates.get(job.id()).build(workload.to()));
            }
            return new PolicyRun(label, policyVersion, out, samples, preemptions, reclaimed, decisions, scheduler.counts());
        }
    }

    private static double hours(Instant from, Instant to) {
        return Duration.between(from, to).toMillis() / 3_600_000.0;
    }

    private static Instant min(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }
}
