package io.gpupool.accounting;

import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.fleet.FleetImporter;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.TestClock;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

/** Two requests, one with no priority class and one whose priority class is the text "null": two groups, not one. */
@MicronautTest(transactional = false)
@DatabaseTest
class QueueReportsGroupKeysTest {
    static final Instant T0 = Instant.parse("2027-01-04T00:00:00Z");
    @Inject QueueReports reports;
    @Inject DataSource dataSource;
    @Inject FleetImporter fleet;
    @Inject TestClock clock;

    @Test
    void aPriorityClassNamedNullIsNotMergedWithRequestsThatHaveNone() throws Exception {
        SmallFleetTimeline.importFleetTheDayBefore(T0, clock, fleet); // the cards are in service from the day before on
        try (Connection c = SmallFleetTimeline.autoCommitting(dataSource)) {
            for (String[] r : new String[][]{{"ra", null}, {"rb", "null"}}) {
                try (PreparedStatement s = c.prepareStatement("INSERT INTO gpu_request (id, tenant_id, kind, gpus, milli_per_gpu,"
                        + " allowed_models, min_memory_mib, gang_size, topology, topology_required, pool_id, preemptible,"
                        + " ttl_seconds, state, priority, created_at, updated_at, priority_class) VALUES (?, 'vision', 'TRAINING', 1, 1000,"
                        + " '[\"H100-SXM-80G\"]', 0, 1, 'ANY', FALSE, 'training', TRUE, 3600, 'PLACED', 50, ?, ?, ?)")) {
                    s.setString(1, r[0]);
                    s.setObject(2, T0.atOffset(ZoneOffset.UTC));
                    s.setObject(3, T0.atOffset(ZoneOffset.UTC));
                    s.setString(4, r[1]);
                    s.executeUpdate();
                }
                try (PreparedStatement s = c.prepareStatement("INSERT INTO decision_log (at, action, request_id, rule_names,"
                        + " reason_code, message) VALUES (?, 'ADMIT', ?, '[]', 'TEST', 'test')")) {
                    s.setObject(1, T0.plusSeconds(60).atOffset(ZoneOffset.UTC));
                    s.setString(2, r[0]);
                    s.executeUpdate();
                }
            }
        }
        QueueReport report = reports.queues(ReportWindow.of(T0, T0.plus(Duration.ofHours(1)), Step.HOUR),
                QueueReports.dimensions("priorityClass"), new Caller("t", "ops", Role.ADMIN, null));

        assertThat(report.rows()).as(report.rows().toString()).hasSize(2);
    }
}
