package io.gpupool.api;

import io.gpupool.auth.Allow;
import io.gpupool.auth.Role;
import io.gpupool.problem.ProblemException;
import io.gpupool.prometheus.PrometheusSource;
import io.gpupool.prometheus.PullReport;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;

/**
 * Prometheus as a telemetry source: the last pull's report (what was recorded, which devices no
 * series names, which samples are too old) and a pull on demand. 404 when no
 * {@code gpupool.prometheus.url} is configured.
 */
@Controller("/api/v1/telemetry/prometheus")
public class TelemetryController {
    private final PrometheusSource source;

    TelemetryController(@Nullable PrometheusSource source) {
        this.source = source;
    }

    @Get
    @Allow({Role.ADMIN, Role.VIEWER})
    public PullReport last() {
        return configured().last().orElseThrow(() -> ProblemException.notFound("Prometheus pull", "last"));
    }

    @Post("/pull")
    @Allow(Role.ADMIN)
    public PullReport pull() {
        return configured().pullNow();
    }

    private PrometheusSource configured() {
        if (source == null) {
            throw ProblemException.notFound("telemetry source", "prometheus (gpupool.prometheus.url is not set)");
        }
        return source;
    }
}
