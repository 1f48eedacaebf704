package io.gpupool.metrics;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.inject.Singleton;

/**
 * One scrape of {@code /metrics}: the fleet gauges recomputed from the published snapshot, then every
 * meter in the Prometheus text exposition format (0.0.4). Scrapes run one at a time.
 */
@Singleton
public class MetricsScrape {
    /** The content type of the text exposition format. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final FleetGauges fleet;
    private final PrometheusMeterRegistry registry;

    MetricsScrape(FleetGauges fleet, PrometheusMeterRegistry registry, CommitMeters commits, PolicyMeters policy) {
        this.fleet = fleet;
        this.registry = registry;
    }

    public synchronized String text() {
        fleet.refresh();
        return registry.scrape();
    }
}
