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

    @Test
    void samplesHandedOldestFirstGiveTheHistoryTheSameSamplesInAnyOrderGive() {
        java.util.Random random = new java.util.Random(7);
        for (int round = 0; round < 200; round++) {
            List<UsageSample> ordered = new ArrayList<>();
            Instant at = NOW.minusSeconds(4000).plusMillis(random.nextInt(1000));
            for (int i = 0; i < 1 + random.nextInt(130); i++) {
                ordered.add(new UsageSample("l", at, random.nextInt(4) / 10.0)); // ties in time now and then
                at = at.plusMillis(random.nextInt(3) == 0 ? 0 : random.nextInt(61_000));
            }
            Instant evaluated = random.nextBoolean() ? NOW : ordered.get(ordered.size() / 2).at(); // some after it
            // A sample after the instant sends the same samples through the copy-and-sort path: a
            // stable sort keeps ties in the order given, so both must agree even on ties.
            List<UsageSample> withLateOne = new ArrayList<>(ordered);
            withLateOne.add(new UsageSample("l", evaluated.plusSeconds(1), 0.9));
            assertSameHistory(UsageHistory.of(ordered, evaluated), UsageHistory.of(withLateOne, evaluated));
            assertSameHistory(UsageHistory.of(new java.util.LinkedList<>(ordered), evaluated), UsageHistory.of(withLateOne, evaluated));
            java.util.Set<Instant> times = new java.util.HashSet<>();
            List<UsageSample> untied = ordered.stream().filter(sample -> times.add(sample.at())).toList();
            List<UsageSample> shuffled = new ArrayList<>(untied);
            java.util.Collections.shuffle(shuffled, random);
            assertSameHistory(UsageHistory.of(untied, evaluated), UsageHistory.of(shuffled, evaluated));
        }
    }

    @Test
    void agesAreWholeSecondsRoundedDownAsDurationsCountThem() {
        java.util.Random random = new java.util.Random(11);
        for (int i = 0; i < 10_000; i++) {
            Instant from = NOW.plusSeconds(random.nextInt(20_000) - 10_000).plusNanos(random.nextInt(1_000_000_000));
            Instant to = NOW.plusSeconds(random.nextInt(20_000) - 10_000).plusNanos(random.nextInt(1_000_000_000));
            assertThat(SnapshotFacts.secondsBetween(from, to)).as(from + " to " + to)
                    .isEqualTo(Duration.between(from, to).getSeconds());
        }
        assertThat(SnapshotFacts.secondsBetween(null, NOW)).isZero();
    }

    private static void assertSameHistory(UsageHistory actual, UsageHistory expected) {
        assertThat(actual.isEmpty()).isEqualTo(expected.isEmpty());
        assertThat(actual.newestAgeSeconds()).isEqualTo(expected.newestAgeSeconds());
        for (double threshold : new double[] {0.0, 0.1, 0.2, 0.35, 1.0}) {
            assertThat(actual.idleSecondsBelow(threshold)).as("idle below " + threshold).isEqualTo(expected.idleSecondsBelow(threshold));
        }
        for (long seconds : new long[] {0, 60, 600, 3600, 5000}) {
            assertThat(actual.meanOver(seconds)).as("mean over " + seconds).isEqualTo(expected.meanOver(seconds));
        }
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
