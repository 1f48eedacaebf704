package io.gpupool.simulation;

import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.snapshot.PoolSnapshot;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * One workload replayed under each of several policies, each from the same fleet: the first policy
 * is the baseline the others' deltas are taken against. The runs share nothing but their immutable
 * inputs (fleet, workload, compiled policies, the engine), so they may run one after another on
 * the caller's thread or side by side on threads of their own; either way each run is the same.
 */
public final class PolicyReplay {
    /** A policy to replay under, with the label it has in the outputs (e.g. {@code active}, {@code v7}, a directory). */
    public record Candidate(String label, CompiledPolicy policy) {
    }

    /** Every policy's run of the workload, the baseline first. */
    public record Result(Workload workload, PoolSnapshot fleet, List<PolicyRun> runs) {
        public PolicyRun baseline() {
            return runs.get(0);
        }
    }

    /**
     * Told of the run under way (0-based), how many there are, and how far it is (0..1). With runs
     * side by side, calls for different runs interleave (never at once: they are serialised here).
     */
    public interface Progress {
        void at(int run, int runs, String label, double done);
    }

    private PolicyReplay() {
    }

    /** The runs one after another on the caller's thread (a replay job, bounded by its CPU share). */
    public static Result run(Simulation simulation, PoolSnapshot fleet, Workload workload, List<Candidate> candidates,
                             Progress progress, BooleanSupplier cancelled) {
        return run(simulation, fleet, workload, candidates, progress, cancelled, 1);
    }

    /**
     * The runs on up to {@code threads} threads of their own, one policy each (1: on the caller's
     * thread, one after another). The first run that fails stops the others, and its failure is
     * thrown, as in a sequential replay.
     */
    public static Result run(Simulation simulation, PoolSnapshot fleet, Workload workload, List<Candidate> candidates,
                             Progress progress, BooleanSupplier cancelled, int threads) {
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException("A replay needs at least one policy");
        }
        if (threads <= 1 || candidates.size() == 1) {
            List<PolicyRun> runs = new ArrayList<>();
            for (int i = 0; i < candidates.size(); i++) {
                runs.add(one(simulation, fleet, workload, candidates, i, progress, cancelled));
            }
            return new Result(workload, fleet, runs);
        }
        AtomicBoolean failed = new AtomicBoolean();
        BooleanSupplier stop = () -> failed.get() || cancelled.getAsBoolean();
        Progress serialised = (run, runs, label, done) -> {
            synchronized (progress) {
                progress.at(run, runs, label, done);
            }
        };
        AtomicInteger named = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, candidates.size()), task -> {
            Thread t = new Thread(task, "policy-replay-" + named.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<PolicyRun>> futures = new ArrayList<>();
            for (int i = 0; i < candidates.size(); i++) {
                int index = i;
                futures.add(pool.submit(() -> {
                    try {
                        return one(simulation, fleet, workload, candidates, index, serialised, stop);
                    } catch (RuntimeException | Error e) {
                        failed.set(true); // the other runs stop at their next event
                        throw e;
                    }
                }));
            }
            List<PolicyRun> runs = new ArrayList<>();
            Throwable first = null;
            for (Future<PolicyRun> future : futures) {
                try {
                    runs.add(future.get());
                } catch (ExecutionException e) {
                    // the run that failed first in candidate order, unless it only stopped because another failed
                    if (first == null || first instanceof CancellationException && !(e.getCause() instanceof CancellationException)) {
                        first = e.getCause();
                    }
                } catch (InterruptedException e) {
                    failed.set(true);
                    Thread.currentThread().interrupt();
                    throw new CancellationException("Replay interrupted");
                }
            }
            if (first instanceof RuntimeException r) {
                throw r;
            }
            if (first instanceof Error e) {
                throw e;
            }
            if (first != null) {
                throw new IllegalStateException(first);
            }
            return new Result(workload, fleet, runs);
        } finally {
            pool.shutdownNow();
        }
    }

    private static PolicyRun one(Simulation simulation, PoolSnapshot fleet, Workload workload, List<Candidate> candidates,
                                 int index, Progress progress, BooleanSupplier cancelled) {
        Candidate c = candidates.get(index);
        return simulation.run(c.label(), c.policy(), fleet, workload,
                (simulated, done) -> progress.at(index, candidates.size(), c.label(), done), cancelled);
    }
}
