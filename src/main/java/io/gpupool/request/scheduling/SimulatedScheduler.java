package io.gpupool.request.scheduling;

import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.domain.lease.UsageSample;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.governance.ActivePolicy;
import io.gpupool.lease.LeaseService;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.engine.ReclaimRules;
import io.gpupool.policy.fact.FactsTracker;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.fact.UsageWindow;
import io.gpupool.request.AllocationService;
import io.gpupool.request.decision.Outcome;
import io.gpupool.request.decision.PolicyPipeline;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;
import io.gpupool.store.Mutation;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The live scheduler on simulated time, for the policy replay: the holders' and owners' writes
 * (submit, release, cancel, heartbeat) and the scheduling loop's steps ({@link LifecycleScheduler#runOnce}:
 * grace periods ending, the reclamation sweep when due, the queue pass) run on a chain of uncommitted
 * models, each at the instant the caller gives. It is the same code the service runs — the decider,
 * backfill, preemption and the sweep of {@link PolicyPipeline} and {@link LifecycleScheduler} — without
 * a database, a wall clock or a thread; each decision goes to the {@link DecisionSink} as it is made
 * and is not kept, so a replay of weeks holds only the current model. Not thread-safe: one replay, one
 * scheduler.
 */
public final class SimulatedScheduler {
    /** The intervals and limits the live service reads from {@code gpupool.*} (application.yml). */
    public record Settings(Duration grace, Duration sweepEvery, Duration passEvery, int candidateNodes,
                           Duration widenEvery, Duration passBudget) {
        public static Settings defaults() {
            return new Settings(Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(5), 32,
                    Duration.ofSeconds(30), Duration.ofMillis(250));
        }
    }

    /** Where each decision goes, with the simulated instant its write was made at. */
    public interface DecisionSink {
        void logged(LoggedDecision decision, Instant at);
    }

    private final ModelWriter.Uncommitted model;
    /** The simulated instant of the step being run: what each logged decision is stamped with. */
    private Instant now = Instant.EPOCH;
    private final PolicyEngine engine;
    private final CompiledPolicy policy;
    private final PolicyPipeline pipeline;
    private final Settings settings;
    private Instant lastSweep = Instant.EPOCH;
    /** Where the next pass's whole-pool search budget starts, as the live scheduler's ({@link QueuePass}). */
    private final PassBudget.Resume searchesResume = new PassBudget.Resume(null);
    /** Whether passes and sweeps that cannot change anything are skipped (off: every one runs, for comparison). */
    private final boolean skipUnchanged;
    /** The model the last queue pass left, when that pass changed nothing and is known to repeat itself (null otherwise). */
    private PoolSnapshot quietModel;
    /** When that quiet pass ran. */
    private Instant quietAt;
    private final Counts counts = new Counts();
    /** The policy's rules that can order a reclaim: a sweep none of them can fire in is not evaluated. */
    private final ReclaimRules reclaimRules;
    /** The facts of each sweep's model, kept up to date by what changed since the last sweep. */
    private final FactsTracker sweepFacts = new FactsTracker();

    public SimulatedScheduler(PolicyEngine engine, CompiledPolicy policy, Settings settings, PoolSnapshot start,
                              DecisionSink sink) {
        this(engine, policy, settings, start, sink, true);
    }

    /**
     * @param skipUnchanged skip the queue passes and sweep evaluations that provably change nothing
     *                      ({@link #runOnce}); false runs every one, as the live loop does (the
     *                      equivalence tests compare both)
     */
    public SimulatedScheduler(PolicyEngine engine, CompiledPolicy policy, Settings settings, PoolSnapshot start,
                              DecisionSink sink, boolean skipUnchanged) {
        this.model = new ModelWriter.Uncommitted(start, decision -> sink.logged(decision, now), () -> now);
        this.engine = engine;
        this.policy = policy;
        this.settings = settings;
        this.skipUnchanged = skipUnchanged;
        this.reclaimRules = ReclaimRules.of(policy, engine.limits());
        this.pipeline = new PolicyPipeline(engine, ActivePolicy.holding(policy), settings.grace(),
                settings.candidateNodes(), settings.widenEvery());
        this.pipeline.skipRepeatedRetries(skipUnchanged);
        // In order, never one a lease of the start already has: equal victims are told apart by id,
        // so a replay named this way decides the same every time it runs.
        long[] next = {0};
        this.pipeline.leaseIds(() -> {
            String id;
            do {
                id = replayLeaseId(++next[0]);
            } while (model.current().lease(id).isPresent());
            return id;
        });
    }

    /** {@code String.format("replay-lease-%08d", n)} without the formatter: one per lease a replay places. */
    static String replayLeaseId(long n) {
        String digits = Long.toString(n);
        return "replay-lease-" + "0".repeat(Math.max(0, 8 - digits.length())) + digits;
    }

    /** How many queue passes and sweep evaluations ran and how many were skipped as unable to change anything. */
    public static final class Counts {
        private long passes;
        private long passesSkipped;
        private long sweeps;
        private long sweepsSkipped;
        private long admissions;
        private long admissionsRemembered;
        private long admissionsShared;
        private long searchesProvenEmpty;
        private long searchesProvenByPool;
        private long retriesRepeated;

        public long passes() { return passes; }
        /** Admissions that needed a rule session (submissions and retries). */
        public long admissions() { return admissions; }
        /** Admissions answered from memory ({@code EvaluationMemo}). */
        public long admissionsRemembered() { return admissionsRemembered; }
        /** Of those, answered with another request's evaluation of the same shape. */
        public long admissionsShared() { return admissionsShared; }
        public long passesSkipped() { return passesSkipped; }
        /** Victim searches not evaluated: proven to name nobody. */
        public long searchesProvenEmpty() { return searchesProvenEmpty; }
        /** Of those, proven by their pool's leases alone (no search facts derived). */
        public long searchesProvenByPool() { return searchesProvenByPool; }
        /** Retries answered as repeats of their request's last quiet one, without planning ({@code RepeatedRetries}). */
        public long retriesRepeated() { return retriesRepeated; }
        public long sweeps() { return sweeps; }
        public long sweepsSkipped() { return sweepsSkipped; }

        @Override
        public String toString() {
            return "passes " + passes + " run, " + passesSkipped + " skipped; sweeps " + sweeps + " run, "
                    + sweepsSkipped + " skipped; admissions " + admissions + " evaluated, " + admissionsRemembered
                    + " from memory (" + admissionsShared + " shared by shape); victim searches " + searchesProvenEmpty + " proven empty ("
                    + searchesProvenByPool + " by their pool's leases); retries " + retriesRepeated + " repeated without planning";
        }
    }

    public Counts counts() {
        long[] admissions = pipeline.admissions();
        counts.admissions = admissions[0];
        counts.admissionsRemembered = admissions[1];
        counts.admissionsShared = admissions[2];
        counts.searchesProvenEmpty = pipeline.searchesProvenEmpty();
        counts.searchesProvenByPool = pipeline.searchesProvenByPool();
        counts.retriesRepeated = pipeline.retriesRepeated();
        return counts;
    }

    public PoolSnapshot current() {
        return model.current();
    }

    public Settings settings() {
        return settings;
    }

    /** A request submitted at {@code at}, decided as {@code AllocationService.submit} decides it. */
    public Outcome submit(GpuRequest request, Instant at) {
        Outcome outcome = at(at).write((before, changes) -> pipeline.submit(before, changes, request, at));
        if (pipeline.makesNewHead(outcome)) {
            model.write((before, changes) -> pipeline.refreshReservations(before, at));
        }
        return outcome;
    }

    /** The holder releases its lease at {@code at}; empty when the lease no longer holds GPUs. */
    public Optional<Lease> release(String leaseId, Instant at) {
        if (model.current().lease(leaseId).isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(at(at).write(LeaseService.releasing(leaseId, "replay", () -> at)));
    }

    /** The owner cancels a request still queued at {@code at}; false when it is no longer queued. */
    public boolean cancel(String requestId, Instant at) {
        if (!model.current().queued().containsKey(requestId)) {
            return false;
        }
        at(at).write(AllocationService.cancelling(requestId, "replay", () -> at));
        return true;
    }

    /**
     * The holders of {@code heard}, leases of {@code heardIn}, heard at {@code at}, stated in one
     * write: between two sweeps only the newest heartbeat of each lease is ever read, so one write
     * per sweep says what a write per heartbeat would have. Where nothing was written since
     * {@code heardIn}, its very lease objects are the model's and are not looked up again.
     */
    public void heartbeats(PoolSnapshot heardIn, List<Lease> heard, Instant at) {
        if (heard.isEmpty()) {
            return;
        }
        at(at).write((before, changes) -> {
            for (Lease seen : heard) {
                Lease l = before == heardIn ? seen : before.lease(seen.id()).orElse(null);
                if (l != null && (l.lastHeartbeat() == null || l.lastHeartbeat().isBefore(at))) {
                    changes.update(LeaseTransitions.heartbeat(l, at));
                }
            }
            return null;
        });
    }

    /**
     * One scheduling pass at {@code at}, as {@link LifecycleScheduler#runOnce}: notices that ran out
     * end (their GPUs go to the request they were taken for), the policy's sweep runs when
     * {@code sweepEvery} has passed since the last, over the usage samples given (by lease), then the queues
     * are retried (skipped when nothing waits, as {@link QueuePass#run}). Returns how many queued
     * requests it placed.
     */
    public int runOnce(Instant at, Supplier<Map<String, List<UsageSample>>> usage) {
        now = at;
        GracePeriods.endGracePeriods(model, pipeline, at);
        if (!at.isBefore(lastSweep.plus(settings.sweepEvery()))) {
            Map<String, List<UsageSample>> samples = usage.get(); // the holders' heartbeats are stated either way
            if (skipUnchanged && !anyActiveLease()) {
                counts.sweepsSkipped++; // the sweep acts on ACTIVE leases only: with none, its plan changes nothing
            } else if (!skipUnchanged) {
                counts.sweeps++;
                sweep(samples, at); // facts derived afresh, as the live sweep derives them
            } else {
                // The tracked facts at the sweep's instant (equal to a fresh derivation): the proof reads them,
                // and the sweep, when the proof fails, runs on them, lease facts derived once for both.
                SnapshotFacts facts = sweepFacts.of(model.current()).at(at, samples, UsageWindow.DEFAULT);
                if (reclaimRules.cannotFire(facts)) {
                    counts.sweepsSkipped++; // no rule that can reclaim can fire on these facts: its plan is empty
                } else {
                    counts.sweeps++;
                    ReclaimSweep.sweep(at(at), engine, policy, facts, settings.grace(), at, false);
                }
            }
            lastSweep = at;
        }
        if (model.current().queued().isEmpty() && pipeline.reservations().isEmpty()) {
            return 0;
        }
        if (skipUnchanged && repeatsQuietPass(at)) {
            counts.passesSkipped++;
            return 0;
        }
        counts.passes++;
        PoolSnapshot before = model.current();
        long searchesBefore = pipeline.searches();
        int placed = QueuePass.pass(model, pipeline, Clock.fixed(at, ZoneOffset.UTC), settings.passBudget(), searchesResume);
        boolean quiet = model.current() == before && pipeline.searches() == searchesBefore
                && searchesResume.lastPassSpannedTheQueue() && !pipeline.drawsAtRandom(before)
                && before.queued().values().stream().noneMatch(SimulatedScheduler::policyFailed);
        quietModel = quiet ? before : null;
        quietAt = quiet ? at : null;
        return placed;
    }

    /**
     * Whether a queue pass at {@code at} would repeat the last one, which changed nothing: the model
     * is the very one it left (models are immutable; any write makes a new one), and no instant the
     * pass compares the clock with lies in between. A pass that searched for victims is never
     * repeated this way (the search memory it updated ages with the clock), nor one whose search
     * budget (real time) held a search, nor one over a request the policy failed on (a failure may
     * be a real-time limit), nor one with a strategy that draws at random. Without a search, a
     * retry reads the clock only where the request waits for its victims' grace period to end
     * ({@code until}) and where backfill asks whether it would run past a head's reserved start;
     * everything else it reads comes from the model (reservations too: refreshed from the model at
     * each pass). The equivalence tests replay workloads with and without skipping and compare
     * every fate.
     */
    private boolean repeatsQuietPass(Instant at) {
        PoolSnapshot current = model.current();
        if (quietModel == null || current != quietModel) {
            return false;
        }
        for (GpuRequest queued : current.queued().values()) {
            Instant until = queued.whyPending() == null ? null : queued.whyPending().until();
            if (until != null && until.isAfter(quietAt) && !until.isAfter(at)) {
                return false; // its grace period ended since: it is retried now
            }
            if (queued.ttlSeconds() > 0 && pipeline.reservations().startsBetween(quietAt.plusSeconds(queued.ttlSeconds()),
                    at.plusSeconds(queued.ttlSeconds()))) {
                return false; // it would now run past a reserved start it ended before
            }
        }
        return true;
    }

    private static boolean policyFailed(GpuRequest queued) {
        return queued.whyPending() != null && queued.whyPending().blockedBy() == io.gpupool.domain.request.BlockedBy.POLICY_ERROR;
    }

    private boolean anyActiveLease() {
        return model.current().leases().values().stream().anyMatch(l -> l.state() == io.gpupool.domain.lease.LeaseState.ACTIVE);
    }

    /** The policy's reclamation sweep at {@code at} over {@code usage}; returns its evaluation. */
    public Evaluation sweep(Map<String, List<UsageSample>> usage, Instant at) {
        ModelWriter writer = at(at);
        // Unskipped (the comparison's baseline): the requests are inserted whatever the rules read.
        return ReclaimSweep.sweep(writer, engine, policy,
                io.gpupool.policy.fact.SnapshotFacts.of(writer.current(), at, usage, UsageWindow.DEFAULT),
                settings.grace(), at, !skipUnchanged);
    }

    /** The model, with what it logs from now on stamped {@code instant}. */
    private ModelWriter at(Instant instant) {
        now = instant;
        return model;
    }

    /** The earliest grace deadline after {@code after}, when the live scheduler wakes for it. */
    public Optional<Instant> nextDeadline(Instant after) {
        return model.current().underNotice().values().stream().map(Lease::deadline)
                .filter(d -> d != null && d.isAfter(after)).min(Instant::compareTo);
    }
}
