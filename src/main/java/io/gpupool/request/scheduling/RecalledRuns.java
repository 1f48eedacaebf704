package io.gpupool.request.scheduling;

import io.gpupool.domain.lease.UsageSample;
import io.gpupool.governance.PipelineDryRun.Input;
import io.gpupool.policy.dryrun.PipelineRun;
import io.gpupool.snapshot.PoolSnapshot;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * The dry-run's live input given again while nothing it holds changed, and the pipeline runs made
 * on it, so a second dry-run on the same input (the same candidate asked again, or the active side
 * that every dry-run runs) is answered from the first. Without this a moving clock would make every
 * live input new. Runs on any other input (a scenario, a live input already replaced) are not kept.
 */
final class RecalledRuns {
    /** Runs kept on the last live input: the active side and a few candidates (each a few MB at scale). */
    static final int KEPT_RUNS = 6;

    /**
     * What a run reads besides the input: the compiled rules (the very base: a content compiles to
     * one) and the version label its decisions carry, the what-if requests, and where the live
     * queue pass's search budget resumes ({@link QueuePass#resumeFromLive}). Grace, candidate nodes and
     * widening interval are the pipeline's own, fixed.
     */
    record RunKey(Object rules, String version, List<?> whatIf, String searchesResumeAt) {
    }

    /** A run, and whether every policy evaluation in it completed (a run with one that did not is never given again). */
    record Ran(PipelineRun run, boolean evaluationsOk) {
    }

    private final Duration sameInputWithin;
    private Input lastLive;
    private final Map<RunKey, CompletableFuture<PipelineRun>> kept = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<RunKey, CompletableFuture<PipelineRun>> eldest) {
            return size() > KEPT_RUNS;
        }
    };

    RecalledRuns(Duration sameInputWithin) {
        this.sameInputWithin = sameInputWithin;
    }

    /**
     * The input given last, again, while the published model is that very object, the usage samples
     * (as read now) equal its own and the clock has moved less than {@code sameInputWithin} since its
     * instant, not backwards; else a new input (and the runs kept on the old one are forgotten). A
     * dry-run on a given-again input answers as of its instant, at most that much ago, on exactly
     * today's model and usage.
     */
    synchronized Input live(PoolSnapshot snapshot, List<UsageSample> samples, Instant now) {
        Input last = lastLive;
        if (last != null && last.fleet() == snapshot && !now.isBefore(last.now())
                && Duration.between(last.now(), now).compareTo(sameInputWithin) < 0 && last.usage().equals(samples)) {
            return last;
        }
        lastLive = new Input(snapshot, samples, now);
        kept.clear(); // runs on another input are never given again
        return lastLive;
    }

    /**
     * The run {@code key} on {@code input}: given again when made before on this live input (or
     * being made beside this call: two dry-runs at once), else made by {@code run} and kept unless
     * an evaluation in it failed or was stopped (on a busy machine a budget may stop what another
     * try completes, so such a run is made again when asked again).
     */
    PipelineRun recallOrRun(RunKey key, Input input, Supplier<Ran> run) {
        CompletableFuture<PipelineRun> mine = new CompletableFuture<>();
        CompletableFuture<PipelineRun> known;
        synchronized (this) {
            if (input != lastLive) {
                return run.get().run(); // a scenario, or a live input already replaced
            }
            known = kept.putIfAbsent(key, mine);
        }
        if (known != null) {
            try {
                return known.join();
            } catch (CompletionException | CancellationException e) {
                return run.get().run(); // that run failed: this one tries for itself
            }
        }
        Ran ran;
        try {
            ran = run.get();
        } catch (RuntimeException | Error e) {
            forget(key, mine);
            mine.completeExceptionally(e);
            throw e;
        }
        if (!ran.evaluationsOk()) {
            forget(key, mine);
        }
        mine.complete(ran.run());
        return ran.run();
    }

    private synchronized void forget(RunKey key, CompletableFuture<PipelineRun> run) {
        kept.remove(key, run);
    }
}
