package io.gpupool.simulation;

import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.snapshot.PoolSnapshot;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * One workload replayed under each of several policies, one after another on the caller's thread,
 * each from the same fleet: the first policy is the baseline the others' deltas are taken against.
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

    /** Told of the run under way (0-based), how many there are, and how far it is (0..1). */
    public interface Progress {
        void at(int run, int runs, String label, double done);
    }

    private PolicyReplay() {
    }

    public static Result run(Simulation simulation, PoolSnapshot fleet, Workload workload, List<Candidate> candidates,
                             Progress progress, BooleanSupplier cancelled) {
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException("A replay needs at least one policy");
        }
        List<PolicyRun> runs = new ArrayList<>();
        for (int i = 0; i < candidates.size(); i++) {
            Candidate c = candidates.get(i);
            int index = i;
            runs.add(simulation.run(c.label(), c.policy(), fleet, workload,
                    (simulated, done) -> progress.at(index, candidates.size(), c.label(), done), cancelled));
        }
        return new Result(workload, fleet, runs);
    }
}
