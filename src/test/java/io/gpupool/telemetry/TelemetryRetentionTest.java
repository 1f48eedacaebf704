package io.gpupool.telemetry;

import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.TestClock;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Retention of device telemetry on an injected clock: raw samples for 24 hours, then 5-minute
 * rollups for 30 days, then nothing; in bounded slices. On H2 and PostgreSQL.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@Property(name = "gpupool.telemetry.retention-check", value = "1h")
@DatabaseTest
class TelemetryRetentionTest {
    private static final Instant NOW = Instant.parse("2026-05-20T12:00:00Z");

    @Inject
    TelemetryWriter writer;
    @Inject
    TelemetryRetention retention;
    @Inject
    TelemetryHistory history;
    @Inject
    TestClock clock;

    @BeforeEach
    void freeze() {
        clock.freezeAt(NOW);
    }

    private void write(ActivitySample... samples) throws Exception {
        writer.submit("node-1", null, List.of(samples)).get(30, TimeUnit.SECONDS);
    }

    private static ActivitySample gpu(String device, Instant at, double activity, long framebuffer) {
        return new ActivitySample(device, null, null, at, "GR_ENGINE_ACTIVE", activity, framebuffer, "dcgm");
    }

    private static ActivitySample mig(String device, int instance, Instant at, double activity) {
        return new ActivitySample(device, "1g.10gb", instance, at, "GR_ENGINE_ACTIVE", activity, 512L, "dcgm");
    }

    @Test
    void samplesOlderThanADayBecomeFiveMinuteRollupsPerGpuAndMigInstanceAndLeaveTheRawTable() throws Exception {
        Instant bucket = Instant.parse("2026-05-19T10:05:00Z"); // 25 h 55 min ago
        List<ActivitySample> old = new ArrayList<>();
        for (int i = 0; i < 30; i++) { // one every 10 s: the whole bucket
            old.add(gpu("gpu-a", bucket.plusSeconds(10L * i), i % 2 == 0 ? 0.2 : 0.6, i % 2 == 0 ? 1_000 : 3_000));
        }
        old.add(mig("gpu-b", 7, bucket.plusSeconds(40), 0.9));
        old.add(mig("gpu-b", 7, bucket.plusSeconds(50), 0.3));
        write(old.toArray(ActivitySample[]::new));
        Instant recent = NOW.minus(Duration.ofHours(23));
        write(gpu("gpu-a", recent, 0.5, 2_000));

        TelemetryRetention.Outcome outcome = retention.run();

        assertThat(outcome.rawRolledUp()).isEqualTo(32);
        assertThat(outcome.rollupsWritten()).isEqualTo(2);
        assertThat(outcome.caughtUp()).isTrue();
        List<SampleRollup> rollups = history.rollups(Instant.EPOCH, NOW);
        assertThat(rollups).hasSize(2);
        SampleRollup a = rollups.stream().filter(r -> r.deviceId().equals("gpu-a")).findFirst().orElseThrow();
        assertThat(a.bucket()).isEqualTo(bucket);
        assertThat(a.gpuInstanceId()).isNull();
        assertThat(a.metric()).isEqualTo("GR_ENGINE_ACTIVE");
        assertThat(a.sampleCount()).isEqualTo(30);
        assertThat(a.activityAvg()).isCloseTo(0.4, within(1e-6));
        assertThat(a.activityMax()).isCloseTo(0.6, within(1e-6));
        assertThat(a.framebufferAvgMib()).isEqualTo(2_000);
        assertThat(a.framebufferMaxMib()).isEqualTo(3_000);
        SampleRollup b = rollups.stream().filter(r -> r.deviceId().equals("gpu-b")).findFirst().orElseThrow();
        assertThat(b.gpuInstanceId()).isEqualTo(7);
        assertThat(b.migProfile()).isEqualTo("1g.10gb");
        assertThat(b.sampleCount()).isEqualTo(2);
        assertThat(b.activityAvg()).isCloseTo(0.6, within(1e-6));
        assertThat(b.activityMax()).isCloseTo(0.9, within(1e-6));
        assertThat(history.since(Instant.EPOCH)).extracting(ActivitySample::at).containsExactly(recent);
    }

    @Test
    void rollupsOlderThanThirtyDaysAreDeletedAndNothingIsKeptTwice() throws Exception {
        write(gpu("gpu-a", NOW.minus(Duration.ofHours(30)), 0.5, 100), gpu("gpu-a", NOW.minus(Duration.ofHours(2)), 0.7, 100));
        assertThat(retention.run().rollupsWritten()).isEqualTo(1);

        clock.advance(Duration.ofDays(30).minusHours(3));
        TelemetryRetention.Outcome later = retention.run();

        assertThat(later.rawRolledUp()).isEqualTo(1); // the second sample's turn
        assertThat(later.rollupsDeleted()).isEqualTo(1); // the first's rollup is over 30 days old, the second's not yet
        assertThat(history.rollups(Instant.EPOCH, clock.instant())).singleElement()
                .satisfies(r -> assertThat(r.activityAvg()).isCloseTo(0.7, within(1e-6)));
        assertThat(history.since(Instant.EPOCH)).isEmpty();

        clock.advance(Duration.ofDays(1));
        assertThat(retention.run().rollupsDeleted()).isEqualTo(1);
        assertThat(history.rollups(Instant.EPOCH, clock.instant())).isEmpty();
    }

    @Test
    void aBacklogIsWorkedOffInBoundedSlicesOverSeveralRuns() throws Exception {
        Instant start = Instant.parse("2026-05-19T02:00:00Z"); // 34 h ago: 10 h beyond the raw window
        List<ActivitySample> backlog = new ArrayList<>();
        for (int minute = 0; minute < 6 * 60; minute += 5) { // 6 h, one sample per 5 minutes: 72 buckets
            backlog.add(gpu("gpu-a", start.plus(Duration.ofMinutes(minute)), 0.1, 10));
        }
        write(backlog.toArray(ActivitySample[]::new));

        TelemetryRetention.Outcome first = retention.run();
        TelemetryRetention.Outcome second = retention.run();

        // 16 slices of 15 minutes a run, 3 samples each: 48, then the remaining 24
        assertThat(first.rawRolledUp()).isEqualTo(48);
        assertThat(first.caughtUp()).isFalse();
        assertThat(second.rawRolledUp()).isEqualTo(24);
        assertThat(second.caughtUp()).isTrue();
        assertThat(history.rollups(Instant.EPOCH, NOW)).hasSize(72).allSatisfy(r -> assertThat(r.sampleCount()).isEqualTo(1));
        assertThat(history.since(Instant.EPOCH)).isEmpty();
    }
}
