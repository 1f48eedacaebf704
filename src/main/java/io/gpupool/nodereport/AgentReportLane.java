package io.gpupool.nodereport;

import io.gpupool.config.BackgroundPriority;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Named;
import jakarta.inject.Singleton;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The threads node agents' reports run on ({@code @ExecuteOn(AgentReportLane.NAME)} on the
 * controller): their own pool at a lower OS priority ({@code gpupool.telemetry.nice}, default 10),
 * not the I/O pool the lease path's requests run on, so decoding and checking 1,000 samples a second
 * yields to the lease path when both want the cores (docs/operations.md, "Background work and the
 * lease path"). Not the lowest priority: reports must keep up, or a busy lease path would starve
 * them until their nodes look silent. Cached like the I/O pool: a report's thread waits for its
 * telemetry to commit, and the telemetry writer's bounded queue (429 when full) is what limits them.
 */
@Factory
public class AgentReportLane {
    public static final String NAME = "gpupool-agent-reports";

    @Singleton
    @Named(NAME)
    @Bean(preDestroy = "shutdown")
    ExecutorService agentReports(@Value("${gpupool.telemetry.nice:10}") int nice) {
        return Executors.newCachedThreadPool(BackgroundPriority.of(nice).factory("agent-report"));
    }
}
