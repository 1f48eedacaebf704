package io.gpupool.nodereport;

import io.gpupool.telemetry.AgentPresence;

import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.NodeAgent;
import io.gpupool.inventory.StaleNodes;
import io.gpupool.store.WorkingSet;
import io.micronaut.context.annotation.Value;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Stale detection: a node whose agent missed {@code gpupool.agent.stale-after-intervals} reports
 * (default three) has its working devices' health set to UNKNOWN, in one write with a decision-log
 * entry per node. UNKNOWN devices take no new leases; the default reclamation rules take their
 * leases back after a grace period ("Lease on a silent node is reclaimed after ten minutes"). The
 * node's next report makes its devices what that report says (AgentReportService).
 */
@Singleton
public class SilentNodes {
    private static final Logger LOG = LoggerFactory.getLogger(SilentNodes.class);

    private final WorkingSet workingSet;
    private final Clock clock;
    private final int missedIntervals;
    private final AgentPresence presence;

    SilentNodes(WorkingSet workingSet, AgentPresence presence, Clock clock,
                @Value("${gpupool.agent.stale-after-intervals:3}") int missedIntervals) {
        if (missedIntervals < 1) {
            throw new IllegalArgumentException("gpupool.agent.stale-after-intervals must be at least 1, was " + missedIntervals);
        }
        this.workingSet = workingSet;
        this.presence = presence;
        this.clock = clock;
        this.missedIntervals = missedIntervals;
    }

    /** A node with nothing left to mark costs no write (its cards are already UNKNOWN or worse). */
    private boolean hasWorkingDevice(Node n) {
        return workingSet.current().devicesOn(n.id()).stream()
                .anyMatch(d -> d.health() == DeviceHealth.HEALTHY || d.health() == DeviceHealth.DEGRADED);
    }

    @Scheduled(fixedDelay = "${gpupool.agent.stale-check:15s}", initialDelay = "${gpupool.agent.stale-check:15s}")
    void tick() {
        try {
            markSilent();
        } catch (RuntimeException e) {
            LOG.warn("Stale-node check failed; the next one retries: {}", e.toString());
        }
    }

    /** Marks the devices of every silent node UNKNOWN; returns the nodes it marked. */
    public List<String> markSilent() {
        Instant now = clock.instant();
        boolean anySilent = workingSet.current().nodes().values().stream()
                .anyMatch(n -> StaleNodes.isStale(presence.agentOf(n), now, missedIntervals) && hasWorkingDevice(n));
        if (!anySilent) {
            return List.of(); // the common case costs no write
        }
        return workingSet.write((before, changes) -> {
            List<String> marked = new ArrayList<>();
            for (Node recorded : before.nodes().values()) {
                NodeAgent last = presence.agentOf(recorded);
                if (!StaleNodes.isStale(last, now, missedIntervals)) {
                    continue;
                }
                Node node = presence.current(recorded);
                int count = 0;
                for (Device d : before.devicesOn(node.id())) {
                    if (d.health() == DeviceHealth.HEALTHY || d.health() == DeviceHealth.DEGRADED) {
                        changes.put(d.withHealth(DeviceHealth.UNKNOWN, presence.current(d, node).lastHeartbeat()));
                        count++;
                    }
                }
                if (count > 0) {
                    // The record takes the last routine report's time: policy's report age counts from it.
                    if (!node.equals(recorded)) {
                        changes.put(node);
                    }
                    marked.add(node.id());
                    changes.log(LoggedDecision.of(DecisionAction.INVENTORY, null, null, null, List.of(), null,
                            "NODE_SILENT", "Node " + node.id() + ": no agent report since " + node.agent().lastReportAt()
                                    + " (" + missedIntervals + " intervals of " + node.agent().intervalSeconds()
                                    + " s); " + count + " device(s) UNKNOWN, no new leases"), now);
                }
            }
            return marked;
        });
    }
}
