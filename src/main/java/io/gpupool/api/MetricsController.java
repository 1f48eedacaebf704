package io.gpupool.api;

import io.gpupool.auth.Allow;
import io.gpupool.auth.Role;
import io.gpupool.metrics.MetricsScrape;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;

/**
 * {@code GET /metrics}: every meter in the Prometheus text exposition format, whatever the
 * {@code Accept} header says (there is no JSON variant). Access is checked by
 * {@link io.gpupool.auth.MetricsAccessFilter}: an admin or viewer token, or a scraper address in
 * {@code gpupool.metrics.allow-from}. docs/operations.md, "Metrics", lists the meters.
 */
@Controller
public class MetricsController {
    private final MetricsScrape scrape;

    MetricsController(MetricsScrape scrape) {
        this.scrape = scrape;
    }

    // */* besides the text format: a scraper's Accept header never turns the answer into a 406.
    @Get(value = "/metrics", produces = {MetricsScrape.CONTENT_TYPE, MediaType.ALL})
    @Allow({Role.ADMIN, Role.VIEWER})
    public HttpResponse<String> metrics() {
        return HttpResponse.ok(scrape.text()).contentType(MetricsScrape.CONTENT_TYPE);
    }
}
