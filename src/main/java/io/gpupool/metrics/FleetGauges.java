package io.gpupool.metrics;

import io.gpupool.governance.ActivePolicy;
import io.gpupool.lease.UsageRecorder;
import io.gpupool.store.WorkingSet;
import io.gpupool.telemetry.AgentPresence;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The gauges read from the published snapshot: {@link #refresh()} recomputes them from
 * {@link WorkingSet#current()} right before each scrape, so nothing is updated on the decision path
 * and a series whose labels vanished from the fleet (a deleted pool) disappears with it.
 */
@Singleton
public class FleetGauges {
    private final WorkingSet workingSet;
    private final UsageRecorder usage;
    private final Clock clock;
    private final AgentPresence presence;
    private final Duration staleAfter;
    private final List<Figure> figures = new ArrayList<>();
    /** The figures the registered gauges show; held here because a gauge keeps only a weak reference to its value. */
    private FleetFigures shown;

    private record Figure(MultiGauge gauge, List<String> labels, Function<FleetFigures, Map<List<String>, Double>> values) {
    }

    FleetGauges(WorkingSet workingSet, UsageRecorder usage, ActivePolicy policy, Clock clock, PrometheusMeterRegistry registry,
                @Value("${gpupool.metrics.stale-after:5m}") Duration staleAfter, AgentPresence presence) {
        this.workingSet = workingSet;
        this.presence = presence;
        this.usage = usage;
        this.clock = clock;
        this.staleAfter = staleAfter;
        figure(registry, "gpupool.gpus", null, "GPUs by pool, card model, derived tier, health and state (allocated: some lease holds part of it)",
                FleetFigures::gpus, "pool", "model", "tier", "health", "state");
        figure(registry, "gpupool.gpu.allocated.milli", null, "Milli-GPU held by leases (1000 = one whole card)",
                FleetFigures::allocatedMilli, "pool", "model");
        figure(registry, "gpupool.gpu.effective.milli", null, "Milli-GPU held, weighted by the latest utilisation each lease reported (leases that never reported count 0)",
                FleetFigures::effectiveMilli, "pool", "model");
        figure(registry, "gpupool.tenant.allocated.milli", null, "Milli-GPU a tenant's leases hold in a pool",
                FleetFigures::tenantAllocated, "tenant", "pool");
        figure(registry, "gpupool.tenant.borrowed.milli", null, "Milli-GPU a tenant holds beyond its guarantee (reclaimable)",
                FleetFigures::tenantBorrowed, "tenant", "pool");
        figure(registry, "gpupool.tenant.guaranteed.gpus", null, "A tenant's quota guarantee in a pool (model any: all models)",
                FleetFigures::tenantGuaranteed, "tenant", "pool", "model");
        figure(registry, "gpupool.pool.guaranteed.gpus", null, "GPUs a pool's tenant trees are guaranteed (as GET /quotas adds them up)",
                FleetFigures::poolGuaranteed, "pool", "model");
        figure(registry, "gpupool.pool.overcommitted.gpus", null, "GPUs a pool's guarantees exceed its cards by (0: not over-committed)",
                FleetFigures::poolOvercommitted, "pool", "model");
        figure(registry, "gpupool.queue.requests", null, "Requests waiting, by the pool whose queue they wait in",
                FleetFigures::queueRequests, "pool");
        figure(registry, "gpupool.queue.gpus", null, "GPUs the waiting requests ask for",
                FleetFigures::queueGpus, "pool");
        figure(registry, "gpupool.queue.oldest.wait", "seconds", "How long the longest-waiting request has waited, by queue and allowed card model (any: no model named)",
                FleetFigures::queueOldestWait, "pool", "model");
        figure(registry, "gpupool.telemetry.newest.heartbeat.age", "seconds", "Seconds since the newest device heartbeat of a cluster",
                FleetFigures::newestHeartbeatAge, "cluster");
        figure(registry, "gpupool.telemetry.oldest.heartbeat.age", "seconds", "Seconds since the oldest device heartbeat of a cluster (its stalest card)",
                FleetFigures::oldestHeartbeatAge, "cluster");
        figure(registry, "gpupool.telemetry.silent.gpus", null, "GPUs of a cluster that never sent a heartbeat",
                FleetFigures::silentGpus, "cluster");
        figure(registry, "gpupool.nodes.stale", null, "Nodes whose newest device heartbeat is older than gpupool.metrics.stale-after, or that never sent one",
                FleetFigures::staleNodes, "cluster");
        Gauge.builder("gpupool.policy.active.version", policy,
                        p -> p.peek().map(a -> (double) a.version()).orElse(Double.NaN))
                .description("The policy version enforcement uses (NaN while the startup compile runs)")
                .register(registry);
    }

    private void figure(MeterRegistry registry, String name, String unit, String description,
                        Function<FleetFigures, Map<List<String>, Double>> values, String... labels) {
        MultiGauge gauge = MultiGauge.builder(name).baseUnit(unit).description(description).register(registry);
        figures.add(new Figure(gauge, List.of(labels), values));
    }

    /** Recomputes every fleet gauge from the current snapshot; one scrape at a time. */
    public synchronized void refresh() {
        FleetFigures now = FleetFigures.of(workingSet.current(), usage::latest, clock.instant(), staleAfter,
                (device, node) -> presence.current(device, node).lastHeartbeat());
        for (Figure f : figures) {
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            f.values().apply(now).forEach((labels, value) -> {
                String[] tags = new String[labels.size() * 2];
                for (int i = 0; i < labels.size(); i++) {
                    tags[2 * i] = f.labels().get(i);
                    tags[2 * i + 1] = labels.get(i);
                }
                rows.add(MultiGauge.Row.of(Tags.of(tags), value));
            });
            f.gauge().register(rows, true);
        }
        shown = now;
    }
}
