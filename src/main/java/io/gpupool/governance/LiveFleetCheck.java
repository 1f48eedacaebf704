package io.gpupool.governance;

import io.gpupool.policy.check.FleetLiterals;
import io.gpupool.policy.check.ValidationReport;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.ruleset.RuleSetHash;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import java.lang.ref.WeakReference;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * A rule set checked against the live fleet (the published snapshot), not only its own fixtures:
 * literals that name nothing of the fleet and cards the catalog cannot resolve (FLEET warnings,
 * {@link FleetLiterals}), and whether the policy keeps what it grants (COHERENCE errors,
 * {@link CoherenceCheck}). Upload, activation and dry-run all run it on what validation compiled.
 * <p>
 * The findings of a rule set's content on one published snapshot are kept (a few, least recently
 * used out) and given again while that snapshot is still the published one: nothing was committed
 * since, so the check would run on the same fleet with the same rules. An upload, its dry-runs and
 * its activation on a quiet fleet pay for one check (at 10,000 GPUs and 50,000 leases it takes
 * seconds: docs/performance.md, "Dry-run at scale"). A check its budget stopped is kept as well:
 * its INFO message says how many of the generated requests it checked, and a repeat would check
 * the same requests in the same order, only as far as the machine's load lets it in the budget.
 * A dry-run starts the check once its pipelines are done and waits for it only a little
 * ({@link #start}, {@link #within}): the check is a verdict on the candidate (activation enforces it),
 * not part of the pipeline's diff, and at scale it takes longer than the diff itself.
 */
@Singleton
public class LiveFleetCheck {
    private static final int KEPT = 8;
    private final Supplier<PoolSnapshot> fleet;
    private final CoherenceCheck coherence;
    private final Clock clock;
    /** By content hash and whether coherence was checked: the snapshot checked on (not held alive) and the findings. */
    private final Map<String, Checked> checked = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Checked> eldest) {
            return size() > KEPT;
        }
    };

    /** The findings, or the check under way that will give them. */
    private record Checked(WeakReference<PoolSnapshot> fleet, CompletableFuture<List<PolicyMessage>> findings) {
    }

    /** Said in place of the findings of a check still running when a dry-run answers. */
    static final PolicyMessage PENDING = new PolicyMessage(PolicyMessage.Stage.COHERENCE, PolicyMessage.Severity.INFO,
            null, 0, 0, "The live-fleet check of this candidate is still running on this snapshot, so its findings are"
            + " not in this answer (and safeToActivate is false): a dry-run, upload or activation of the same content"
            + " gives them once it is done while nothing was committed since, and activation runs it in full and"
            + " refuses on a coherence error");
    /** Said instead when {@link #WAITING} checks already wait their turn: this one is not started. */
    static final PolicyMessage BUSY = new PolicyMessage(PolicyMessage.Stage.COHERENCE, PolicyMessage.Severity.INFO,
            null, 0, 0, "The live-fleet check of this candidate was not started: other dry-runs' checks are still waiting"
            + " their turn (safeToActivate is false); ask again later, or upload it: an upload runs the check in full");
    private static final int WAITING = 4;
    /**
     * Checks started for a dry-run: one at a time, on a daemon thread, so a dry-run's answer does not
     * wait for them, and at most {@link #WAITING} wait their turn (each is bounded by its budget), so
     * a burst of dry-runs of new content cannot queue minutes of checking.
     */
    private final ExecutorService background = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(WAITING), r -> {
        Thread t = new Thread(r, "gpupool-fleet-check");
        t.setDaemon(true);
        return t;
    });

    @Inject
    LiveFleetCheck(WorkingSet workingSet, CoherenceCheck coherence, Clock clock) {
        this(workingSet::current, coherence, clock);
    }

    /** On whichever published snapshot {@code fleet} gives (tests). */
    LiveFleetCheck(Supplier<PoolSnapshot> fleet, CoherenceCheck coherence, Clock clock) {
        this.fleet = fleet;
        this.coherence = coherence;
        this.clock = clock;
    }

    /**
     * Findings about {@code ruleSet} on the live fleet; coherence only when validation compiled it
     * and could evaluate it: a rule set whose evaluation was stopped on the test fixtures would spend
     * its whole budget again on each of the check's generated requests. Runs on the caller's thread,
     * or joins a check of the same content on the same snapshot that is already running.
     */
    public List<PolicyMessage> check(RuleSet ruleSet, ValidationReport report) {
        try {
            List<PolicyMessage> found = find(ruleSet, report, Runnable::run).join();
            // joined a dry-run's check just as it found no room to wait (then it was forgotten): check here
            return isPending(found) ? find(ruleSet, report, Runnable::run).join() : found;
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    /**
     * The same check started on its own thread (one at a time): a dry-run answers without waiting
     * for the whole of it at scale ({@link #within}). Known findings come back completed; a check of
     * the same content on the same snapshot already running is shared, not started twice.
     */
    public CompletableFuture<List<PolicyMessage>> start(RuleSet ruleSet, ValidationReport report) {
        return find(ruleSet, report, background);
    }

    /**
     * The findings of {@code started} if they come within {@code wait}; else one INFO message saying
     * the check is still running, with {@link #isPending} true. The check goes on and keeps what it
     * finds for its content and snapshot.
     */
    public static List<PolicyMessage> within(CompletableFuture<List<PolicyMessage>> started, Duration wait) {
        try {
            return started.get(Math.max(0, wait.toNanos()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return List.of(PENDING);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of(PENDING);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        }
    }

    /** Whether {@code findings} stand for a check not finished yet: they say nothing of the rules. */
    public static boolean isPending(List<PolicyMessage> findings) {
        return findings.contains(PENDING) || findings.contains(BUSY);
    }

    private CompletableFuture<List<PolicyMessage>> find(RuleSet ruleSet, ValidationReport report, Executor executor) {
        PoolSnapshot fleet = this.fleet.get();
        boolean coherent = report.evaluationErrors().isEmpty() && report.policy().isPresent();
        String key = RuleSetHash.sha256(ruleSet) + (coherent ? "+coherence" : "");
        CompletableFuture<List<PolicyMessage>> mine;
        synchronized (checked) {
            Checked known = checked.get(key);
            if (known != null && known.fleet().get() == fleet) {
                return known.findings();
            }
            mine = new CompletableFuture<>();
            checked.put(key, new Checked(new WeakReference<>(fleet), mine));
        }
        Runnable work = () -> {
            try {
                List<PolicyMessage> messages = new ArrayList<>(FleetLiterals.check(ruleSet, fleet));
                if (coherent) {
                    messages.addAll(coherence.check(report.policy().get(), fleet, clock.instant()));
                }
                mine.complete(List.copyOf(messages));
            } catch (RuntimeException | Error e) {
                forget(key, mine); // a failed check is not an answer to keep
                mine.completeExceptionally(e);
            }
        };
        try {
            executor.execute(work);
        } catch (RejectedExecutionException e) {
            forget(key, mine); // not checked: the next ask starts it again
            mine.complete(List.of(BUSY));
        }
        return mine;
    }

    private void forget(String key, CompletableFuture<List<PolicyMessage>> findings) {
        synchronized (checked) {
            Checked known = checked.get(key);
            if (known != null && known.findings() == findings) {
                checked.remove(key);
            }
        }
    }
}
