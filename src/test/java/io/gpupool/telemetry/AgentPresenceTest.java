package io.gpupool.telemetry;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.NodeAgent;
import io.gpupool.domain.inventory.ShareMode;
import io.micronaut.transaction.TransactionCallback;
import io.micronaut.transaction.TransactionDefinition;
import io.micronaut.transaction.TransactionOperations;
import io.micronaut.transaction.TransactionStatus;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** A node's last report is the newer of its inventory record's and the routine reports applied since. */
class AgentPresenceTest {
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

    /** A node_presence table with no rows: the service's first start. */
    private static final class NoPresenceRows implements TransactionOperations<Connection> {
        @Override
        public Connection getConnection() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean hasConnection() {
            return false;
        }

        @Override
        public Optional<? extends TransactionStatus<?>> findTransactionStatus() {
            return Optional.empty();
        }

        @Override
        public <R> R execute(TransactionDefinition definition, TransactionCallback<Connection, R> callback) {
            return null;
        }
    }

    private final AgentPresence presence = new AgentPresence(new NoPresenceRows());

    private static Node node(NodeAgent agent) {
        return new Node("n1", "c1", "s1", "r1", 64_000, 1 << 20, Map.of("zone", "a"), agent);
    }

    private static Device device(DeviceHealth health, Instant heartbeat) {
        return new Device("n1-gpu0", "GPU-0", "n1", "c1", "s1", 0, "H100-SXM-80G", 81920, null, 0, false,
                ShareMode.EXCLUSIVE, List.of(), health, Map.of(), "training", heartbeat);
    }

    private static NodeAgent report(long sequence, int secondsAfterT0) {
        return new NodeAgent(sequence, T0.plusSeconds(secondsAfterT0), 10, "dcgm");
    }

    @Test
    void aNodeWithoutRoutineReportsShowsTheAgentOfItsRecord() {
        Node recorded = node(report(5, 0));

        assertThat(presence.agentOf(recorded)).isEqualTo(report(5, 0));
        assertThat(presence.current(recorded)).isSameAs(recorded);
    }

    @Test
    void aNewerRoutineReportReplacesTheRecordedAgentAndKeepsTheRestOfTheNode() {
        presence.applied("n1", report(6, 10));

        Node shown = presence.current(node(report(5, 0)));

        assertThat(shown.agent()).isEqualTo(report(6, 10));
        assertThat(shown).usingRecursiveComparison().ignoringFields("agent").isEqualTo(node(report(5, 0)));
    }

    @Test
    void aRoutineReportNoNewerThanTheRecordDoesNotHideIt() {
        presence.applied("n1", report(5, 10));

        assertThat(presence.agentOf(node(report(5, 0)))).isEqualTo(report(5, 0));
        assertThat(presence.agentOf(node(report(7, 30)))).isEqualTo(report(7, 30));
    }

    @Test
    void aNodeRecordedWithoutAnAgentShowsItsRoutineReport() {
        presence.applied("n1", report(1, 10));

        assertThat(presence.agentOf(node(null))).isEqualTo(report(1, 10));
    }

    @Test
    void aReportAppliedOutOfOrderDoesNotRewindTheNode() {
        presence.applied("n1", report(8, 80));
        presence.applied("n1", report(7, 70));

        assertThat(presence.agentOf(node(null))).isEqualTo(report(8, 80));

        presence.applied("n1", report(9, 90));
        assertThat(presence.agentOf(node(null))).isEqualTo(report(9, 90));
    }

    @Test
    void aCardInTheLastReportTakesThatReportsTimeAsItsHeartbeat() {
        presence.applied("n1", report(6, 60));

        Device shown = presence.current(device(DeviceHealth.HEALTHY, T0), node(report(5, 0)));

        assertThat(shown.lastHeartbeat()).isEqualTo(T0.plusSeconds(60));
        assertThat(shown.health()).isEqualTo(DeviceHealth.HEALTHY);
        assertThat(presence.current(device(DeviceHealth.HEALTHY, null), node(null)).lastHeartbeat())
                .isEqualTo(T0.plusSeconds(60));
    }

    @Test
    void aCardKeepsItsOwnHeartbeatWhenTheReportIsNotNewer() {
        presence.applied("n1", report(6, 60));
        Device sameTime = device(DeviceHealth.HEALTHY, T0.plusSeconds(60));
        Device later = device(DeviceHealth.HEALTHY, T0.plusSeconds(61));

        assertThat(presence.current(sameTime, node(null))).isSameAs(sameTime);
        assertThat(presence.current(later, node(null))).isSameAs(later);
    }

    @Test
    void anOfflineCardWasNotInTheLastReportAndKeepsItsLastHeartbeat() {
        presence.applied("n1", report(6, 60));
        Device offline = device(DeviceHealth.OFFLINE, T0);

        assertThat(presence.current(offline, node(null))).isSameAs(offline);
    }

    @Test
    void aCardWithoutANodeOrWithoutRoutineReportsIsShownAsRecorded() {
        Device card = device(DeviceHealth.HEALTHY, T0);

        assertThat(presence.current(card, null)).isSameAs(card);
        assertThat(presence.current(card, node(null))).isSameAs(card);
    }

    @Test
    void oneNodeHasOneLockAndAnotherNodeItsOwn() {
        assertThat(presence.lockFor("n1")).isSameAs(presence.lockFor("n1")).isNotSameAs(presence.lockFor("n2"));
    }
}
