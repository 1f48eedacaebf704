package io.gpupool.request.coherence;

import io.gpupool.fleet.ShippedFleet;
import io.gpupool.policy.DefaultPolicy;
import io.gpupool.snapshot.PoolSnapshot;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The live-fleet coherence check of the default policy on the shipped fleet (324 GPUs, 8 tenants),
 * the check every upload and dry-run runs. It was a wall-clock assertion in GrantCoherenceTest,
 * which failed on a loaded machine without any change in behaviour; the time is measured here.
 * Usage: scripts/benchmark io.gpupool.request.coherence.GrantCoherenceBenchmark [runs]
 */
public final class GrantCoherenceBenchmark {
    public static void main(String[] args) {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        Instant now = Instant.parse("2026-12-01T12:00:00Z");
        PoolSnapshot fleet = ShippedFleet.snapshot(now);
        GrantCoherence check = new GrantCoherence(DefaultPolicy.ENGINE);
        int generated = GrantCoherence.generate(DefaultPolicy.POLICY, fleet, now).size();
        check.check(DefaultPolicy.POLICY, fleet, now); // warm-up
        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            long started = System.nanoTime();
            int messages = check.check(DefaultPolicy.POLICY, fleet, now).size();
            millis.add((System.nanoTime() - started) / 1_000_000);
            if (messages != 0) {
                throw new IllegalStateException("the default policy is no longer coherent on the shipped fleet: " + messages + " messages");
            }
        }
        System.out.printf("coherence check, default policy, shipped fleet (%d GPUs, %d generated requests), %d runs: %s ms%n",
                fleet.devices().size(), generated, runs, millis);
    }
}
