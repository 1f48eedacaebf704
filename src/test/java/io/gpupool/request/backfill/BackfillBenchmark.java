package io.gpupool.request.backfill;

import io.gpupool.request.input.Allocators;
import io.gpupool.request.input.PolicyInputs;
import io.gpupool.testing.GpuRequests;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.policy.perf.SyntheticFleet;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * What one scheduling pass pays for the backfill reservation of a capacity-blocked head, at fleet
 * scale, every lease with a TTL (the expensive case: every lease is a candidate end). Run:
 * {@code scripts/benchmark io.gpupool.request.backfill.BackfillBenchmark [gpus] [leases]} (defaults 10000 50000).
 * A pass runs on every release when something is queued, inside the single writer.
 */
public final class BackfillBenchmark {
    public static void main(String[] args) {
        int gpus = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int leases = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        PoolSnapshot fleet = SyntheticFleet.facts(gpus, leases, 0.75).snapshot();
        Instant now = fleet.takenAt();
        Random random = new Random(3);
        PoolSnapshotBuilder withTtls = fleet.toBuilder().version(fleet.version() + 1);
        for (Lease l : fleet.leases().values()) {
            withTtls.lease(LeaseTransitions.renewed(l, now.plusSeconds(600 + random.nextInt(86_400))));
        }
        PoolSnapshot snapshot = withTtls.build();
        String tenant = snapshot.tenants().values().stream().filter(t -> t.parentId() != null).findFirst().orElseThrow().id();
        GpuRequest head = GpuRequests.request("head").tenant(tenant).gpus(8).pool("training").priority(100)
                .whyPending(new WhyPending(BlockedBy.CAPACITY, "queue-when-full", "NO_CAPACITY", "no room", 0, "training",
                        null, null))
                .at(now).build();
        PolicyInputs inputs = new PolicyInputs(); // the writer's: the capacity view and the ending leases follow commits
        Backfill backfill = new Backfill(new Allocators(), inputs);
        System.out.printf("fleet: %d GPUs, %d leases with a TTL; head: 8 whole GPUs in pool training%n",
                snapshot.devices().size(), snapshot.leases().size());
        long first = System.nanoTime();
        Backfill.Reservation r = backfill.reserve(snapshot, head);
        System.out.printf("first pass, ending leases indexed from scratch: %.2f ms%n", (System.nanoTime() - first) / 1e6);
        double[] ms = new double[25];
        for (int i = -10; i < ms.length; i++) {
            long start = System.nanoTime();
            r = backfill.reserve(snapshot, head);
            if (i >= 0) {
                ms[i] = (System.nanoTime() - start) / 1e6;
            }
        }
        Arrays.sort(ms);
        System.out.printf("reservation: start %s on %d GPUs; per pass p50 %.2f ms, max %.2f ms (%d runs after 10 warm-up)%n",
                r.start(), r.gpus().size(), ms[ms.length / 2], ms[ms.length - 1], ms.length);
        List<Lease> all = List.copyOf(snapshot.leases().values());
        double[] upkeep = new double[2_000];
        PoolSnapshot s = snapshot;
        for (int i = 0; i < upkeep.length; i++) { // one lease renewed per commit
            Lease current = s.lease(all.get(random.nextInt(all.size())).id()).orElseThrow();
            s = s.toBuilder().version(s.version() + 1)
                    .lease(LeaseTransitions.renewed(current, current.expiresAt().plusSeconds(3_600))).build();
            inputs.view(s);
            long start = System.nanoTime();
            inputs.ending(s);
            upkeep[i] = (System.nanoTime() - start) / 1e6;
        }
        Arrays.sort(upkeep);
        System.out.printf("keeping the ending leases per commit (one lease renewed): p50 %.4f ms, p99 %.4f ms%n",
                upkeep[upkeep.length / 2], upkeep[upkeep.length * 99 / 100]);
    }
}
