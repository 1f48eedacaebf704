package io.gpupool.simulation;

import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.GpuRequests;

import java.time.Duration;
import java.time.Instant;

/**
 * A fleet to replay on: one training pool of two 8×H100-SXM-80G nodes in which "vision" and "speech"
 * are each guaranteed 8 GPUs and may borrow 8 more; and fluent jobs on it.
 */
final class ReplayFleet {
    static final Instant T0 = Instant.parse("2026-03-02T00:00:00Z");

    private ReplayFleet() {
    }

    static PoolSnapshot twoH100Nodes() {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(T0);
        b.pool(new Pool("training", "training", PoolTier.TRAINING, "pack", false, null));
        for (String tenant : new String[]{"vision", "speech"}) {
            b.tenant(new Tenant(tenant, tenant, null, null));
            b.quota(new Quota(tenant, "training", Quota.ANY_MODEL, 8, 8, 8));
        }
        for (String node : new String[]{"fra-h100-01", "fra-h100-02"}) {
            Fleets.nodeOf(b, Fleets.node(node), 8, gpu -> gpu.model("H100-SXM-80G").shareMode(ShareMode.EXCLUSIVE)
                    .pool("training").lastHeartbeat(T0));
        }
        return b.build();
    }

    /** A training job of {@code tenant} for {@code gpus} whole GPUs arriving {@code arrivesAfter} after T0. */
    static JobBuilder job(String id, String tenant, int gpus, Duration arrivesAfter) {
        return new JobBuilder(GpuRequests.request(id).tenant(tenant).gpus(gpus).kind(WorkloadKind.TRAINING)
                .at(T0.plus(arrivesAfter)), T0.plus(arrivesAfter));
    }

    static final class JobBuilder {
        final GpuRequests.Builder ask;
        private final Instant arrival;
        private Duration runsFor;
        private Duration heartbeatsFor;
        private double utilisation = Double.NaN;
        private Instant cancelledAt;

        private JobBuilder(GpuRequests.Builder ask, Instant arrival) {
            this.ask = ask;
            this.arrival = arrival;
        }

        JobBuilder runsFor(Duration value) { runsFor = value; return this; }
        JobBuilder heartbeatsFor(Duration value) { heartbeatsFor = value; return this; }
        JobBuilder utilisation(double value) { utilisation = value; return this; }
        JobBuilder cancelledAfter(Duration value) { cancelledAt = arrival.plus(value); return this; }
        JobBuilder priorityClass(String value) { ask.priorityClass(value); return this; }
        JobBuilder pool(String value) { ask.pool(value); return this; }
        JobBuilder ttl(Duration value) { ask.ttlSeconds(value.getSeconds()); return this; }

        Job build() {
            return new Job(ask.build(), arrival, runsFor, heartbeatsFor, utilisation, cancelledAt, "test");
        }
    }
}
