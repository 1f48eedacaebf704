package io.gpupool.accounting;

import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.fleet.FleetImporter;
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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * {@link ReclamationReports} over lease rows and decision-log entries written straight to the tables
 * (the small fleet), every instant known:
 * <pre>
 * L1 vision 2 H100s    00:00–04:00 (expiry)  notice 01:00 idle since 00:20, reclaimed 01:10 by IDLE
 * L2 speech ½ L40S     00:30, no expiry      reclaimed 02:00 by IDLE at once, idle since 01:00
 * L3 speech 1 H100     00:00–05:00           notice 02:30 idle since 02:00, a notice for ill health 02:40,
 *                                            reclaimed 02:45 by UNHEALTHY
 * L7 speech 1 H100     01:00–03:30           reclaimed 03:00 with no rule (TTL_OVERRUN)
 * L8 speech 2 H100s    01:30                 preempted 03:00 by GUARANTEE
 * started within 10 minutes on what was given back: speech on L1's first card 01:15, vision on L1's second
 * 01:12 (its own tenant), vision a whole L40S on L2's card 02:05, vision on L3's card 02:55 (10 minutes on)
 * </pre>
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReclamationReportsTest {
    static final Instant T0 = Instant.parse("2027-01-04T00:00:00Z");
    static final String IDLE = "Training or experiment idle for an hour is reclaimed";
    static final String UNHEALTHY = "A lease on an unhealthy card is reclaimed";
    static final String GUARANTEE = "A guarantee takes back borrowed capacity";
    static final Caller ADMIN = new Caller("test", "ops", Role.ADMIN, null);

    @Inject
    ReclamationReports reports;
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
            lease(c, "L1", "vision", "training", at(0, 0), at(4, 0), at(1, 10), 1000, "h100-a-gpu0", "h100-a-gpu1");
            lease(c, "L2", "speech", "dev", at(0, 30), null, at(2, 0), 500, "l40s-a-gpu0");
            lease(c, "L3", "speech", "training", at(0, 0), at(5, 0), at(2, 45), 1000, "h100-b-gpu0");
            lease(c, "L7", "speech", "training", at(1, 0), at(3, 30), at(3, 0), 1000, "h100-b-gpu1");
            lease(c, "L8", "speech", "training", at(1, 30), null, at(3, 0), 1000, "h100-b-gpu2", "h100-b-gpu3");
            lease(c, "L4", "speech", "training", at(1, 15), null, null, 1000, "h100-a-gpu0");
            lease(c, "L5", "vision", "training", at(1, 12), null, null, 1000, "h100-a-gpu1");
            lease(c, "L10", "vision", "dev", at(2, 5), null, null, 1000, "l40s-a-gpu0");
            lease(c, "L11", "vision", "training", at(2, 55), null, null, 1000, "h100-b-gpu0");
            entry(c, "NOTICE", "L1", "vision", "[\"" + IDLE + "\"]", "IDLE", at(1, 0), at(0, 20));
            entry(c, "RECLAIM", "L1", "vision", "[\"" + IDLE + "\"]", "IDLE", at(1, 10), null);
            entry(c, "RECLAIM", "L2", "speech", "[\"" + IDLE + "\"]", "IDLE", at(2, 0), at(1, 0));
            entry(c, "NOTICE", "L3", "speech", "[\"" + IDLE + "\"]", "IDLE", at(2, 30), at(2, 0));
            entry(c, "NOTICE", "L3", "speech", "[\"" + UNHEALTHY + "\"]", "UNHEALTHY", at(2, 40), null);
            entry(c, "RECLAIM", "L3", "speech", "[\"" + UNHEALTHY + "\"]", "UNHEALTHY", at(2, 45), null);
            entry(c, "RECLAIM", "L7", "speech", "[]", "TTL_OVERRUN", at(3, 0), null);
            entry(c, "PREEMPT", "L8", "speech", "[\"" + GUARANTEE + "\"]", "GUARANTEE", at(3, 0), null);
        }
    }

    /** A lease row and its shares; {@code endedAt} null: still held. */
    static void lease(Connection c, String id, String tenant, String pool, Instant createdAt, Instant expiresAt,
                      Instant endedAt, int milli, String... devices) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO lease (id, request_id, tenant_id, pool_id, kind, priority,"
                + " preemptible, borrowed, state, created_at, expires_at, ended_at, opened_seq, closed_seq)"
                + " VALUES (?, ?, ?, ?, 'TRAINING', 50, TRUE, FALSE, ?, ?, ?, ?, 0, ?)")) {
            s.setString(1, id);
            s.setString(2, "req-" + id);
            s.setString(3, tenant);
            s.setString(4, pool);
            s.setString(5, endedAt == null ? "ACTIVE" : "RECLAIMED");
            s.setObject(6, createdAt.atOffset(ZoneOffset.UTC));
            s.setObject(7, expiresAt == null ? null : expiresAt.atOffset(ZoneOffset.UTC));
            s.setObject(8, endedAt == null ? null : endedAt.atOffset(ZoneOffset.UTC));
            s.setObject(9, endedAt == null ? null : 0L);
            s.executeUpdate();
        }
        for (String device : devices) {
            try (PreparedStatement s = c.prepareStatement("INSERT INTO lease_share (lease_id, device_id, milli, model)"
                    + " VALUES (?, ?, ?, ?)")) {
                s.setString(1, id);
                s.setString(2, device);
                s.setInt(3, milli);
                s.setString(4, device.startsWith("h100") ? "H100-SXM-80G" : "L40S-PCIE-48G");
                s.executeUpdate();
            }
        }
    }

    static void entry(Connection c, String action, String lease, String tenant, String rules, String reason, Instant at,
                      Instant idleSince) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO decision_log (at, action, lease_id, tenant_id, rule_names,"
                + " reason_code, message, idle_since) VALUES (?, ?, ?, ?, ?, ?, 'test', ?)")) {
            s.setObject(1, at.atOffset(ZoneOffset.UTC));
            s.setString(2, action);
            s.setString(3, lease);
            s.setString(4, tenant);
            s.setString(5, rules);
            s.setString(6, reason);
            s.setObject(7, idleSince == null ? null : idleSince.atOffset(ZoneOffset.UTC));
            s.executeUpdate();
        }
    }

    static ReportWindow hours(int from, int to, Step step) {
        return ReportWindow.of(at(from, 0), at(to, 0), step);
    }

    static BigDecimal d(String value) {
        return new BigDecimal(value);
    }

    @Test
    void reclaimsAreCountedPerRuleWithTheGpuHoursTheyGaveBackTheirIdlenessAndWhatAnotherTenantTookWithinTenMinutes() {
        ReclamationReport report = reports.reclamation(hours(0, 6, Step.DAY), List.of(), ADMIN);

        assertThat(report.reclaims()).extracting(ReclamationReport.ReclaimRow::rule, ReclamationReport.ReclaimRow::reclaims,
                ReclamationReport.ReclaimRow::gpus, ReclamationReport.ReclaimRow::gpuHoursReturned).containsExactly(
                tuple("(no rule: TTL_OVERRUN)", 1, d("1.000"), d("0.500000")), // 03:00 to its expiry at 03:30
                tuple(UNHEALTHY, 1, d("1.000"), d("2.250000")), // 02:45 to 05:00
                // L1: 2 GPUs from 01:10 to its expiry at 04:00; L2: half a GPU from 02:00 to the window's end
                tuple(IDLE, 2, d("2.500"), d("7.666667")));
        assertThat(report.reclaims()).extracting(ReclamationReport.ReclaimRow::idleKnown,
                ReclamationReport.ReclaimRow::idleToReclaimP50Seconds, ReclamationReport.ReclaimRow::idleToReclaimMaxSeconds,
                ReclamationReport.ReclaimRow::reusedWithin10mGpus, ReclamationReport.ReclaimRow::reusedWithin10mShare)
                .containsExactly(
                        tuple(0, null, null, d("0.000"), d("0.0000")),
                        // the later notice for ill health decided it: no idleness; vision took the card 10 minutes on
                        tuple(0, null, null, d("1.000"), d("1.0000")),
                        // idle 3000 s (notice's start) and 3600 s (the immediate reclaim's own); speech took one of L1's
                        // cards (vision's start on the other is its own), vision a whole L40S of which L2 gave back half
                        tuple(2, d("3000.000"), d("3600.000"), d("1.500"), d("0.6000")));
        assertThat(report.reclaims()).allSatisfy(r -> assertThat(r.bucket()).isEqualTo(T0));
    }

    @Test
    void aPreemptionCostsTheWorkItsVictimHadDone() {
        ReclamationReport report = reports.reclamation(hours(0, 6, Step.DAY), QueueReports.dimensions("tenant"), ADMIN);

        // 2 GPUs from 01:30 to 03:00
        assertThat(report.preemptions()).extracting(ReclamationReport.PreemptionRow::rule, r -> r.group().get("tenant"),
                ReclamationReport.PreemptionRow::preemptions, ReclamationReport.PreemptionRow::gpus,
                ReclamationReport.PreemptionRow::gpuHoursLost).containsExactly(tuple(GUARANTEE, "speech", 1, d("2.000"), d("3.000000")));
    }

    @Test
    void rowsFallInTheBucketOfTheReclaimOrderedByRuleNameThenGroup() {
        ReclamationReport report = reports.reclamation(hours(0, 6, Step.HOUR), ReclamationReports.dimensions("tenant,pool"),
                ADMIN);

        assertThat(report.reclaims()).extracting(ReclamationReport.ReclaimRow::bucket, ReclamationReport.ReclaimRow::rule,
                r -> r.group().get("tenant"), r -> r.group().get("pool")).containsExactly(
                tuple(at(1, 0), IDLE, "vision", "training"),
                tuple(at(2, 0), UNHEALTHY, "speech", "training"),
                tuple(at(2, 0), IDLE, "speech", "dev"),
                tuple(at(3, 0), "(no rule: TTL_OVERRUN)", "speech", "training"));
        assertThat(report.preemptions()).extracting(ReclamationReport.PreemptionRow::bucket).containsExactly(at(3, 0));
    }

    @Test
    void aWindowCountedToThePresentReturnsGpuHoursOnlyUpToItAndLeavesOutLaterReclaims() {
        ReclamationReport report = reports.reclamation(hours(0, 6, Step.DAY).until(at(3, 0)), List.of(), ADMIN);

        // L1: 2 GPUs from 01:10 to 03:00; L2: half a GPU from 02:00 to 03:00; L7's reclaim at 03:00 is not yet
        assertThat(report.reclaims()).extracting(ReclamationReport.ReclaimRow::rule, ReclamationReport.ReclaimRow::gpuHoursReturned)
                .containsExactly(tuple(UNHEALTHY, d("0.250000")), tuple(IDLE, d("4.166667")));
        assertThat(report.preemptions()).isEmpty();
    }

    @Test
    void aTenantSeesOnlyTheReclaimsAndPreemptionsOfItsOwnLeases() {
        ReclamationReport vision = reports.reclamation(hours(0, 6, Step.DAY), ReclamationReports.dimensions("tenant"),
                new Caller("t1", "vision-ci", Role.TENANT, "vision"));

        assertThat(vision.reclaims()).extracting(ReclamationReport.ReclaimRow::rule, r -> r.group().get("tenant"),
                ReclamationReport.ReclaimRow::gpus).containsExactly(tuple(IDLE, "vision", d("2.000")));
        assertThat(vision.preemptions()).isEmpty();
    }

    @Test
    void aWindowWithoutReclaimsOrPreemptionsHasNoRows() {
        ReclamationReport report = reports.reclamation(hours(4, 6, Step.HOUR), List.of(), ADMIN);

        assertThat(report.reclaims()).isEmpty();
        assertThat(report.preemptions()).isEmpty();
        assertThat(report.step()).isEqualTo("hour");
    }
}
