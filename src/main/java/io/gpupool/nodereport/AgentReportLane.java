package io.gpupool.nodereport;

import io.gpupool.config.BackgroundPriority;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Named;
import jakarta.inject.Singleton;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The threads node agents' reports run on ({@code @ExecuteOn(AgentReportLane.NAME)} on the
 * controller): their own pool at the background OS priority, not the I/O pool the lease path's
 * requests run on, so decoding and checking 1,000 samples a second takes only what the lease path
 * leaves (docs/performance.md, "Lanes"). Cached like the I/O pool: a report's thread waits for its
 * telemetry to commit, and the telemetry writer's bounded queue (429 when full) is what limits them.
 */
@Factory
public class AgentReportLane {
    public static final String NAME = "gpupool-agent-reports";

    @Singleton
    @Named(NAME)
    @Bean(preDestroy = "shutdown")
    ExecutorService agentReports(BackgroundPriority background) {
        return Executors.newCachedThreadPool(background.factory("agent-report"));
    }
}
