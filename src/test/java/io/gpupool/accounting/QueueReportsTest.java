package io.gpupool.accounting;

import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.fleet.FleetImporter;
import io.gpupool.store.OperatingHistory.RequestRow;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.TestClock;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import javax.sql.DataSource;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/**
 * {@link QueueReports} over request rows and decision-log entries written straight to the tables,
 * so every arrival and decision is at a known instant (the small fleet: 16 H100 in training).
 * <pre>
 * r9  vision  1 GPU   arrived 23:00 the day before, admitted 00:05   (wait 3900 s)
 * r1  vision  2 GPUs  arrived 00:00, admitted 00:10, cancelled 00:15 (wait 600 s; the cancel comes too late to count)
 * r2  vision  1 GPU   arrived 00:20, admitted 00:50                  (wait 1800 s)
 * r3  speech  4 GPUs  arrived 00:30, admitted 00:31                  (wait 60 s)
 * r4  speech  8 GPUs  arrived 00:40, sent to approval 00:41, denied 01:30
 * r5  vision  1 GPU   arrived and rejected at 01:00
 * r6  speech  2 GPUs  arrived 01:10, cancelled 02:15
 * r7  vision 16 GPUs  of H100 or A100, arrived 02:30, still waiting
 * r0  vision  1 GPU   arrived and admitted the day before: not in the window at all
 * </pre>
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QueueReportsTest {
    static final Instant T0 = Instant.parse("2027-01-04T00:00:00Z");
    static final String H100 = "H100-SXM-80G";
    static final Caller ADMIN = new Caller("test", "ops", Role.ADMIN, null);

    @Inject
    QueueReports reports;
    @Inject
    DataSource dataSource;
    @Inject
    FleetImporter fleet;
    @Inject
    TestClock clock;

    static Instant at(int hour, int minute) {
        return T0.plus(Duration.ofHours(hour).plusMinutes(minute));
    }

    @BeforeAll
    void timeline() throws Exception {
        SmallFleetTimeline.importFleetTheDayBefore(T0, clock, fleet); // the cards are in service from the day before on
        try (Connection c = SmallFleetTimeline.autoCommitting(dataSource)) {
            request(c, "r0", "vision", 1, "[\"" + H100 + "\"]", at(-2, 0));
            decide(c, "r0", "ADMIT", at(-2, 0));
            request(c, "r9", "vision", 1, "[\"" + H100 + "\"]", at(-1, 0));
            request(c, "r1", "vision", 2, "[\"" + H100 + "\"]", at(0, 0));
            decide(c, "r9", "ADMIT", at(0, 5));
            decide(c, "r1", "ADMIT", at(0, 10));
            decide(c, "r1", "CANCEL", at(0, 15));
            request(c, "r2", "vision", 1, "[\"" + H100 + "\"]", at(0, 20));
            request(c, "r3", "speech", 4, "[\"" + H100 + "\"]", at(0, 30));
            decide(c, "r3", "ADMIT", at(0, 31));
            request(c, "r4", "speech", 8, "[\"" + H100 + "\"]", at(0, 40));
            decide(c, "r4", "AWAIT_APPROVAL", at(0, 41));
            decide(c, "r2", "ADMIT", at(0, 50));
            request(c, "r5", "vision", 1, "[\"" + H100 + "\"]", at(1, 0));
            decide(c, "r5", "REJECT", at(1, 0));
            request(c, "r6", "speech", 2, "[\"" + H100 + "\"]", at(1, 10));
            decide(c, "r4", "DENY", at(1, 30));
            decide(c, "r6", "CANCEL", at(2, 15));
            request(c, "r7", "vision", 16, "[\"" + H100 + "\", \"A100-SXM-80G\"]", at(2, 30));
        }
    }

    static void request(Connection c, String id, String tenant, int gpus, String models, Instant createdAt) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO gpu_request (id, tenant_id, kind, gpus, milli_per_gpu,"
                + " allowed_models, min_memory_mib, gang_size, topology, topology_required, pool_id, preemptible,"
                + " ttl_seconds, state, priority, created_at, updated_at) VALUES (?, ?, 'TRAINING', ?, 1000, ?, 0, 1,"
                + " 'ANY', FALSE, 'training', TRUE, 3600, 'QUEUED', 50, ?, ?)")) {
            s.setString(1, id);
            s.setString(2, tenant);
            s.setInt(3, gpus);
            s.setString(4, models);
            s.setObject(5, createdAt.atOffset(ZoneOffset.UTC));
            s.setObject(6, createdAt.atOffset(ZoneOffset.UTC));
            s.executeUpdate();
        }
    }

    static void decide(Connection c, String request, String action, Instant at) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO decision_log (at, action, request_id, rule_names,"
                + " reason_code, message) VALUES (?, ?, ?, '[]', 'TEST', 'test')")) {
            s.setObject(1, at.atOffset(ZoneOffset.UTC));
            s.setString(2, action);
            s.setString(3, request);
            s.executeUpdate();
        }
    }

    static ReportWindow hours(int from, int to, Step step) {
        return ReportWindow.of(at(from, 0), at(to, 0), step);
    }

    static BigDecimal s(String seconds) {
        return new BigDecimal(seconds);
    }

    @Test
    void eachBucketCountsItsAdmissionsWaitsOutcomesAndTheRequestsStillWaitingAtItsEnd() {
        QueueReport report = reports.queues(hours(0, 4, Step.HOUR), List.of(), ADMIN);

        assertThat(report.rows()).extracting(QueueReport.Row::bucket, QueueReport.Row::admitted,
                QueueReport.Row::waitP50Seconds, QueueReport.Row::waitP90Seconds, QueueReport.Row::waitP99Seconds,
                QueueReport.Row::waitMaxSeconds).containsExactly(
                // waits 60, 600, 1800, 3900 s: the median is the 2nd by rank, p90 and p99 the 4th
                tuple(at(0, 0), 4, s("600.000"), s("3900.000"), s("3900.000"), s("3900.000")),
                tuple(at(1, 0), 0, null, null, null, null),
                tuple(at(2, 0), 0, null, null, null, null),
                tuple(at(3, 0), 0, null, null, null, null));
        assertThat(report.rows()).extracting(QueueReport.Row::rejected, QueueReport.Row::cancelled,
                QueueReport.Row::deniedOrLapsed, QueueReport.Row::sentToApproval, QueueReport.Row::stillWaiting,
                QueueReport.Row::stillWaitingOldestSeconds).containsExactly(
                tuple(0, 0, 0, 1, 1, s("1200.000")), // r4 waits at 01:00, since 00:40; r1's late cancel is not counted
                tuple(1, 0, 1, 0, 1, s("3000.000")), // r5 rejected, r4 denied; r6 waits at 02:00, since 01:10
                tuple(0, 1, 0, 0, 1, s("1800.000")), // r6 cancelled; r7 waits at 03:00, since 02:30
                tuple(0, 0, 0, 0, 1, s("5400.000"))); // r7 still waits at 04:00
    }

    @Test
    void groupsByTenantAndTheOneModelAskedForWithSeveralModelsAGroupOfTheirOwn() {
        QueueReport report = reports.queues(hours(0, 4, Step.DAY), QueueReports.dimensions("tenant,model"), ADMIN);

        assertThat(report.groupBy()).containsExactly("tenant", "model");
        assertThat(report.rows()).extracting(r -> r.group().get("tenant"), r -> r.group().get("model"),
                QueueReport.Row::admitted, QueueReport.Row::waitP50Seconds, QueueReport.Row::waitMaxSeconds,
                QueueReport.Row::rejected, QueueReport.Row::cancelled, QueueReport.Row::deniedOrLapsed,
                QueueReport.Row::sentToApproval, QueueReport.Row::stillWaiting).containsExactly(
                tuple("speech", H100, 1, s("60.000"), s("60.000"), 0, 1, 1, 1, 0),
                tuple("vision", H100, 3, s("1800.000"), s("3900.000"), 1, 0, 0, 0, 0),
                tuple("vision", null, 0, null, null, 0, 0, 0, 0, 1));
    }

    @Test
    void aWindowReachingIntoTheFutureEndsItsCountsAtThePresentAndHasNoRowsAfterIt() {
        ReportWindow toSixCountedToHalfPastThree = hours(0, 6, Step.HOUR).until(at(3, 30));

        QueueReport report = reports.queues(toSixCountedToHalfPastThree, List.of(), ADMIN);

        assertThat(report.rows()).extracting(QueueReport.Row::bucket).containsExactly(at(0, 0), at(1, 0), at(2, 0), at(3, 0));
        assertThat(report.rows().get(3).stillWaitingOldestSeconds()).as("r7 at 03:30").isEqualTo(s("3600.000"));
    }

    @Test
    void aWindowStartingLaterLeavesOutTheRequestsDecidedBeforeIt() {
        QueueReport report = reports.queues(hours(2, 4, Step.DAY), List.of(), ADMIN);

        // r6 (cancelled 02:15) and r7 (waiting) only: everything else was decided before 02:00
        assertThat(report.rows()).singleElement().satisfies(r -> {
            assertThat(r.admitted()).isZero();
            assertThat(r.cancelled()).isEqualTo(1);
            assertThat(r.rejected() + r.deniedOrLapsed() + r.sentToApproval()).isZero();
            assertThat(r.stillWaiting()).isEqualTo(1);
        });
    }

    @Test
    void aTenantSeesOnlyItsOwnRequestsAndNoFleetPressure() {
        QueueReport speech = reports.queues(hours(0, 4, Step.DAY), QueueReports.dimensions("tenant"),
                new Caller("t1", "speech-ci", Role.TENANT, "speech"));

        assertThat(speech.rows()).singleElement().satisfies(r -> {
            assertThat(r.group()).isEqualTo(Map.of("tenant", "speech"));
            assertThat(r.admitted()).isEqualTo(1);
        });
        assertThat(speech.pressure()).isNull();
    }

    @Test
    void pressureIsTheMeanOfTheGpusWaitingRequestsAskedForAgainstTheModelsGpusInService() {
        List<QueueReport.PressureRow> pressure = reports.queues(hours(0, 4, Step.HOUR), List.of(), ADMIN).pressure();

        // 00:00–01:00: r9 1 GPU × 5 min + r1 2 × 10 + r2 1 × 30 + r3 4 × 1 + r4 8 × 20 = 219 GPU-minutes: 3.65 of 16
        // 01:00–02:00: r4 8 × 30 + r6 2 × 50 = 340 GPU-minutes: 5.667 of 16; 03:00: r7 allows two models
        assertThat(pressure).filteredOn(p -> p.model().equals(H100)).extracting(QueueReport.PressureRow::bucket,
                QueueReport.PressureRow::queuedGpus, QueueReport.PressureRow::supplyGpus, QueueReport.PressureRow::queuedPerSupply)
                .containsExactly(tuple(at(0, 0), s("3.650"), s("16.000"), s("0.2281")),
                        tuple(at(1, 0), s("5.667"), s("16.000"), s("0.3542")),
                        tuple(at(2, 0), s("0.500"), s("16.000"), s("0.0312")), // r6 2 × 15 min; half to even
                        tuple(at(3, 0), s("0.000"), s("16.000"), s("0.0000")));
        assertThat(pressure).filteredOn(p -> p.model().equals("(any)")).extracting(QueueReport.PressureRow::bucket,
                QueueReport.PressureRow::queuedGpus, QueueReport.PressureRow::supplyGpus, QueueReport.PressureRow::queuedPerSupply)
                .containsExactly(tuple(at(2, 0), s("8.000"), s("0.000"), null), tuple(at(3, 0), s("16.000"), s("0.000"), null));
    }

    @Test
    void aRequestAsksForItsModelOnlyWhenItAllowsExactlyOne() {
        assertThat(QueueReports.askedModel(row("[\"L40S-PCIE-48G\"]"))).isEqualTo("L40S-PCIE-48G");
        assertThat(QueueReports.askedModel(row("[\"H100-SXM-80G\", \"A100-SXM-80G\"]"))).isNull();
        assertThat(QueueReports.askedModel(row("[]"))).as("any model").isNull();
        assertThatThrownBy(() -> QueueReports.askedModel(row("H100-SXM-80G")))
                .isInstanceOf(IllegalStateException.class).hasMessage("corrupt request row r-42");
    }

    private static RequestRow row(String allowedModels) {
        return new RequestRow("r-42", "vision", "TRAINING", null, "training", allowedModels, 1, 1000, T0, null, null);
    }
}
