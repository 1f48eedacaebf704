package io.gpupool.metrics;

import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Committed;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.GpuRequests;
import io.gpupool.testing.Leases;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What one commit adds to the counters and histograms, from the {@link Committed} event alone. */
class CommitMetersTest {
    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final CommitMeters meters = new CommitMeters(registry);

    private static PoolSnapshot fleetWith(List<Lease> leases, List<GpuRequest> queued) {
        var b = PoolSnapshot.builder().version(1).takenAt(NOW);
        Fleets.nodeOf(b, Fleets.node("n1"), 4, g -> g.model("H100").pool("training"));
        leases.forEach(b::lease);
        queued.forEach(b::request);
        return b.build();
    }

    private PrometheusText scrape() {
        return PrometheusText.parse(registry.scrape());
    }

    @Test
    void aPreemptionCommitCountsTheVictimTheDecisionsAndTheBatch() {
        Lease victim = Leases.lease("victim").pool("training").whole("n1-gpu0").build();
        PoolSnapshot before = fleetWith(List.of(victim), List.of());
        Lease ended = Leases.copyOf(victim).state(LeaseState.PREEMPTED).build();
        LoggedDecision preempt = LoggedDecision.of(DecisionAction.PREEMPT, "r1", "victim", "vision",
                List.of("Higher priority preempts lower", "another rule"), "v1", "PRIORITY", "preempted");

        meters.onApplicationEvent(new Committed(before, fleetWith(List.of(), List.of()), List.of(ended), List.of(),
                List.of(), List.of(), false, List.of(preempt), 3));

        PrometheusText metrics = scrape();
        assertThat(metrics.sum("gpupool_preemptions_total", "pool", "training")).isEqualTo(1);
        assertThat(metrics.sum("gpupool_reclaims_total")).isZero();
        assertThat(metrics.sum("gpupool_decisions_total", "action", "preempt", "rule", "Higher priority preempts lower",
                "reason", "PRIORITY")).isEqualTo(1);
        assertThat(metrics.sum("gpupool_writer_batch_writes_sum")).isEqualTo(3);
        assertThat(metrics.sum("gpupool_writer_batch_writes_bucket", "le", "4.0")).isEqualTo(1);
    }

    @Test
    void aQueuedRequestPlacedAfterTenMinutesIsObservedOnceInTheWaitHistogramOfItsPoolAndModel() {
        GpuRequest queued = GpuRequests.request("r1").pool("training").gpus(2).at(NOW.minusSeconds(600)).build();
        PoolSnapshot before = fleetWith(List.of(), List.of(queued));
        // a gang of two members: two leases, one request, one observation
        Lease first = Leases.lease("l1").request("r1").pool("training").whole("n1-gpu0").createdAt(NOW).build();
        Lease second = Leases.lease("l2").request("r1").pool("training").whole("n1-gpu1").createdAt(NOW).build();
        GpuRequest placed = queued.with(RequestState.PLACED, queued.priority(), "l1", null, NOW);

        meters.onApplicationEvent(new Committed(before, fleetWith(List.of(first, second), List.of()),
                List.of(first, second), List.of(placed), List.of(), List.of(), false, List.of(), 1));

        PrometheusText metrics = scrape();
        assertThat(metrics.sum("gpupool_queue_wait_seconds_count", "pool", "training", "model", "H100")).isEqualTo(1);
        assertThat(metrics.sum("gpupool_queue_wait_seconds_sum", "pool", "training", "model", "H100")).isEqualTo(600);
        assertThat(metrics.sum("gpupool_queue_wait_seconds_bucket", "pool", "training", "le", "300.0")).isZero();
        assertThat(metrics.sum("gpupool_queue_wait_seconds_bucket", "pool", "training", "le", "600.0")).isEqualTo(1);
    }
}
