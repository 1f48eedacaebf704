package io.gpupool.telemetry;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.NodeAgent;
import io.micronaut.transaction.TransactionOperations;
import jakarta.inject.Singleton;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each agent node's last applied report (sequence, time, interval, source), kept apart from the
 * inventory: a routine report moves only this (and its row in {@code node_presence}, written by
 * {@link TelemetryWriter}), while the node record keeps the agent state of the last report that
 * changed the inventory. Whoever shows or judges a node's last report reads it through
 * {@link #current(Node)} and {@link #current(Device, Node)}: the newer of the two.
 * Loaded from the table at start, so a restart forgets no report.
 */
@Singleton
public class AgentPresence {
    private final Map<String, NodeAgent> byNode = new ConcurrentHashMap<>();
    private final Map<String, Object> locks = new ConcurrentHashMap<>();

    public AgentPresence(TransactionOperations<Connection> tx) {
        tx.executeRead(status -> {
            try (var st = status.getConnection().prepareStatement(
                    "SELECT node_id, sequence, reported_at_ms, interval_seconds, source FROM node_presence");
                 var rs = st.executeQuery()) {
                while (rs.next()) {
                    byNode.put(rs.getString(1), new NodeAgent(rs.getLong(2), Instant.ofEpochMilli(rs.getLong(3)),
                            rs.getInt(4), rs.getString(5)));
                }
            } catch (SQLException e) {
                throw new IllegalStateException("node presence not loaded: " + e.getMessage(), e);
            }
            return null;
        });
    }

    /** The node's latest agent state: its record's, or a newer routine report's. */
    public NodeAgent agentOf(Node node) {
        NodeAgent recorded = node.agent();
        NodeAgent reported = byNode.get(node.id());
        if (reported == null) {
            return recorded;
        }
        return recorded == null || reported.sequence() > recorded.sequence() ? reported : recorded;
    }

    /** The node as the API and stale detection see it: with its latest agent state. */
    public Node current(Node node) {
        NodeAgent latest = agentOf(node);
        return latest == node.agent() ? node
                : new Node(node.id(), node.clusterId(), node.siteId(), node.rack(), node.cpuMilli(), node.memoryMib(),
                node.labels(), latest);
    }

    /**
     * The device with its last report: a card the inventory does not hold OFFLINE was in its node's
     * last report (a report that leaves a card out takes it OFFLINE, through the inventory), so its
     * last heartbeat is that report's time when newer.
     */
    public Device current(Device device, Node node) {
        if (node == null || device.health() == DeviceHealth.OFFLINE) {
            return device;
        }
        NodeAgent reported = byNode.get(node.id());
        if (reported == null || device.lastHeartbeat() != null && !reported.lastReportAt().isAfter(device.lastHeartbeat())) {
            return device;
        }
        return device.withHealth(device.health(), reported.lastReportAt());
    }

    /** After the report's rows committed. */
    public void applied(String nodeId, NodeAgent agent) {
        byNode.merge(nodeId, agent, (a, b) -> b.sequence() > a.sequence() ? b : a);
    }

    /** One node's reports are applied one at a time (an agent sends them in order anyway). */
    public Object lockFor(String nodeId) {
        return locks.computeIfAbsent(nodeId, k -> new Object());
    }
}
