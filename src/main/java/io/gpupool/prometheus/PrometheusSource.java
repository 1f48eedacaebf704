package io.gpupool.prometheus;

import io.gpupool.store.WorkingSet;
import io.gpupool.telemetry.DeviceTelemetry;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Prometheus as a telemetry source, when {@code gpupool.prometheus.url} is set: a pull every
 * {@code gpupool.prometheus.interval} (default 30 s) over the published snapshot, and the last
 * pull's report for {@code GET /api/v1/telemetry/prometheus}. A failed pull is reported and the
 * next one tries again; what was recorded before stays (docs/inventory-sources.md, "Prometheus").
 */
@Singleton
@Requires(property = "gpupool.prometheus.url")
public class PrometheusSource {
    private static final Logger LOG = LoggerFactory.getLogger(PrometheusSource.class);

    private final WorkingSet workingSet;
    private final Clock clock;
    private final PrometheusPull pull;
    private final AtomicReference<PullReport> last = new AtomicReference<>();

    PrometheusSource(WorkingSet workingSet, DeviceTelemetry telemetry, Clock clock,
                     @Value("${gpupool.prometheus.url}") String url,
                     @Value("${gpupool.prometheus.stale-after:2m}") Duration staleAfter,
                     @Value("${gpupool.prometheus.timeout:10s}") Duration timeout,
                     @Value("${gpupool.prometheus.clusters:}") String clusters,
                     @Value("${gpupool.prometheus.labels.uuid:exported_UUID,UUID}") String uuid,
                     @Value("${gpupool.prometheus.labels.gpu:exported_gpu,gpu}") String gpu,
                     @Value("${gpupool.prometheus.labels.host:exported_Hostname,exported_hostname,Hostname,hostname}") String host,
                     @Value("${gpupool.prometheus.labels.mig-profile:exported_GPU_I_PROFILE,GPU_I_PROFILE}") String migProfile,
                     @Value("${gpupool.prometheus.labels.mig-instance:exported_GPU_I_ID,GPU_I_ID}") String migInstance) {
        URI base = URI.create(url.endsWith("/") ? url : url + "/");
        if (!"http".equals(base.getScheme()) && !"https".equals(base.getScheme())) {
            throw new IllegalArgumentException("gpupool.prometheus.url must be an http(s) URL, was " + url);
        }
        Set<String> scope = new HashSet<>();
        Arrays.stream(clusters.split(",")).map(String::trim).filter(s -> !s.isEmpty()).forEach(scope::add);
        this.workingSet = workingSet;
        this.clock = clock;
        this.pull = new PrometheusPull(base, timeout, SeriesLabels.of(uuid, gpu, host, migProfile, migInstance), staleAfter,
                scope, telemetry);
    }

    @Scheduled(fixedDelay = "${gpupool.prometheus.interval:30s}", initialDelay = "${gpupool.prometheus.initial-delay:5s}")
    void tick() {
        PullReport report = pullNow();
        if (!report.ok()) {
            LOG.warn("Prometheus pull failed; the next one retries: {}", report.error());
        }
    }

    /** Pulls now and keeps the report. */
    public PullReport pullNow() {
        PullReport report;
        try {
            report = pull.pull(workingSet.current(), clock.instant());
        } catch (RuntimeException e) {
            report = PullReport.failed(null, clock.instant(), e.toString());
        }
        last.set(report);
        return report;
    }

    public Optional<PullReport> last() {
        return Optional.ofNullable(last.get());
    }
}
