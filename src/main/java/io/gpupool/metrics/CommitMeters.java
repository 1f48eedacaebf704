package io.gpupool.metrics;

import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Committed;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.context.annotation.Context;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counters and histograms fed by what each commit wrote ({@link Committed}): decisions by action,
 * rule and reason code, preemptions and reclaims, queue wait of placed requests, writer batch
 * sizes. Runs on the committing thread under the writer lock, so it does O(changes) work of
 * map look-ups and increments only; meters are cached per label set.
 */
// Created at startup so that its counters are exported from zero, not first at their first increment.
@Context
public class CommitMeters implements ApplicationEventListener<Committed> {
    /** Buckets of the queue wait histogram: from an immediate admission to a day in the queue. */
    static final Duration[] WAIT_BUCKETS = {Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(15),
            Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofMinutes(2), Duration.ofMinutes(5),
            Duration.ofMinutes(10), Duration.ofMinutes(30), Duration.ofHours(1), Duration.ofHours(2),
            Duration.ofHours(6), Duration.ofHours(24)};
    static final double[] BATCH_BUCKETS = {1, 2, 4, 8, 16, 32, 64, 128, 256};
    static final String NONE = "none";

    private final MeterRegistry registry;
    private final DistributionSummary batchWrites;
    private final Map<List<String>, Counter> decisions = new ConcurrentHashMap<>();
    private final Map<List<String>, Counter> endings = new ConcurrentHashMap<>();
    private final Map<List<String>, Timer> waits = new ConcurrentHashMap<>();

    CommitMeters(PrometheusMeterRegistry registry) {
        this.registry = registry;
        this.batchWrites = DistributionSummary.builder("gpupool.writer.batch.writes")
                .description("Writes one group commit of the working set served")
                .serviceLevelObjectives(BATCH_BUCKETS).register(registry);
    }

    @Override
    public void onApplicationEvent(Committed change) {
        batchWrites.record(change.writes());
        for (LoggedDecision d : change.decisions()) {
            String rule = d.ruleNames().isEmpty() ? NONE : d.ruleNames().get(0);
            String reason = d.reasonCode() == null || d.reasonCode().isBlank() ? NONE : d.reasonCode();
            decisions.computeIfAbsent(List.of(d.action().name().toLowerCase(), rule, reason),
                    k -> Counter.builder("gpupool.decisions").description("Decisions logged, by action, deciding rule (the first named) and reason code")
                            .tags("action", k.get(0), "rule", k.get(1), "reason", k.get(2)).register(registry)).increment();
        }
        PoolSnapshot before = change.before();
        Set<String> placed = new HashSet<>();
        Map<String, GpuRequest> requests = null; // indexed on the first placement only
        for (Lease lease : change.leases()) {
            Lease was = before.leases().get(lease.id());
            if (was != null && !lease.state().holdsDevices()
                    && (lease.state() == LeaseState.PREEMPTED || lease.state() == LeaseState.RECLAIMED)) {
                String pool = lease.poolId() == null ? FleetFigures.UNASSIGNED : lease.poolId();
                endings.computeIfAbsent(List.of(lease.state().name(), pool), k -> Counter.builder(
                                lease.state() == LeaseState.PREEMPTED ? "gpupool.preemptions" : "gpupool.reclaims")
                        .description(lease.state() == LeaseState.PREEMPTED
                                ? "Leases ended to make room for a higher-priority request"
                                : "Borrowed or idle leases ended to return GPUs to their guarantee holder")
                        .tags("pool", pool).register(registry)).increment();
            }
            if (was == null && lease.state().holdsDevices() && placed.add(lease.requestId())) {
                if (requests == null) {
                    requests = new HashMap<>();
                    for (GpuRequest r : change.requests()) {
                        requests.put(r.id(), r);
                    }
                }
                observeWait(change, lease, requests.get(lease.requestId()));
            }
        }
    }

    /** A request got its (first) lease in this commit: how long it waited since it was submitted. */
    private void observeWait(Committed change, Lease lease, GpuRequest written) {
        GpuRequest request = written;
        if (request == null) {
            request = change.before().queued().get(lease.requestId());
        }
        if (request == null || request.createdAt() == null || lease.createdAt() == null) {
            return;
        }
        String pool = lease.poolId() == null ? FleetFigures.UNASSIGNED : lease.poolId();
        Device device = lease.shares().isEmpty() ? null : change.after().devices().get(lease.shares().get(0).deviceId());
        String model = device == null ? FleetFigures.ANY : device.model();
        Duration waited = Duration.between(request.createdAt(), lease.createdAt());
        waits.computeIfAbsent(List.of(pool, model), k -> Timer.builder("gpupool.queue.wait")
                        .description("Time from a request's submission to its placement, by the pool and card model it got")
                        .tags("pool", k.get(0), "model", k.get(1)).serviceLevelObjectives(WAIT_BUCKETS)
                        .register(registry))
                .record(waited.isNegative() ? Duration.ZERO : waited);
    }
}
