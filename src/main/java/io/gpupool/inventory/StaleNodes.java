package io.gpupool.inventory;

import io.gpupool.domain.inventory.NodeAgent;

import java.time.Duration;
import java.time.Instant;

/**
 * When a node's agent counts as silent: no report for {@code missedIntervals} of the intervals the
 * agent itself announced (default three, {@code gpupool.agent.stale-after-intervals}). One missed
 * report is routine (a slow nvidia-smi, a restart); three in a row means nobody is watching the cards.
 */
public final class StaleNodes {
    public static final int DEFAULT_MISSED_INTERVALS = 3;

    private StaleNodes() {
    }

    public static boolean isStale(NodeAgent agent, Instant now, int missedIntervals) {
        return agent != null && agent.lastReportAt()
                .plus(Duration.ofSeconds((long) Math.max(1, agent.intervalSeconds()) * missedIntervals)).isBefore(now);
    }
}
