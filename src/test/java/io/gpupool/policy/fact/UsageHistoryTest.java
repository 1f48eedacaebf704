package io.gpupool.policy.fact;

import io.gpupool.domain.lease.UsageSample;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A rule picks its own idle threshold and window from a lease's usage history. The lease below ran
 * at 90 % until 45 minutes ago and has trickled along at 8 % since, a sample every five minutes.
 */
class UsageHistoryTest {
    private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
    private final UsageHistory trickling = UsageHistory.of(trickle(), NOW);

    @Test
    void underATenPercentThresholdItHasBeenIdleSinceItsLastBusySample() {
        assertThat(trickling.idleSecondsBelow(0.10)).isEqualTo(45 * 60);
    }

    @Test
    void underAFivePercentThresholdItIsNotIdleAtAll() {
        assertThat(trickling.idleSecondsBelow(0.05)).isZero();
    }

    @Test
    void underAThresholdNoSampleReachesItIsIdleSinceItsOldestSample() {
        assertThat(trickling.idleSecondsBelow(0.95)).isEqualTo(60 * 60);
    }

    @Test
    void theMeanCoversOnlyTheSamplesOfTheWindowAsked() {
        assertThat(trickling.meanOver(10 * 60)).isCloseTo(0.08, within(1e-9)); // ages 10, 5 and 0 min
        assertThat(trickling.meanOver(50 * 60)).isCloseTo((2 * 0.9 + 9 * 0.08) / 11, within(1e-9));
    }

    @Test
    void samplesStampedAfterTheEvaluationInstantAreLeftOut() {
        List<UsageSample> withFuture = new ArrayList<>(trickle());
        withFuture.add(new UsageSample("l", NOW.plusSeconds(60), 0.9));
        assertThat(UsageHistory.of(withFuture, NOW).idleSecondsBelow(0.10)).isEqualTo(45 * 60);
    }

    @Test
    void withoutSamplesNothingIsIdleAndThereIsNoMean() {
        UsageHistory none = UsageHistory.of(List.of(), NOW);
        assertThat(none.idleSecondsBelow(0.5)).isZero();
        assertThat(none.meanOver(3600)).isEqualTo(-1.0);
        assertThat(none.isEmpty()).isTrue();
    }

    /** Out of order on purpose: callers hand samples in arrival order, not time order. */
    private static List<UsageSample> trickle() {
        List<UsageSample> samples = new ArrayList<>();
        for (int ageMinutes = 0; ageMinutes <= 60; ageMinutes += 5) {
            samples.add(new UsageSample("l", NOW.minus(Duration.ofMinutes(ageMinutes)), ageMinutes >= 45 ? 0.9 : 0.08));
        }
        return samples;
    }
}
