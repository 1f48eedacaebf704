package io.gpupool.policy.fact;

import io.gpupool.domain.lease.UsageSample;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lease's usage log hands out lists that share its arrays: they must never change afterwards, and
 * the history and lease facts read from them must be those a plain copy of the same samples gives.
 */
class UsageSampleLogTest {
    private static final Instant START = Instant.parse("2026-11-30T12:00:00Z");

    @Test
    void aListHandedOutNeverChangesWhileTheLogAppendsDropsAndReallocates() {
        UsageSampleLog log = new UsageSampleLog();
        List<List<UsageSample>> handedOut = new ArrayList<>();
        List<List<UsageSample>> copies = new ArrayList<>();
        Instant at = START;
        for (int sweep = 0; sweep < 400; sweep++) {
            log.append(new UsageSample("l", at, (sweep % 7) / 10.0));
            log.dropBefore(at.minus(Duration.ofMinutes(30)));
            List<UsageSample> now = log.samples();
            handedOut.add(now);
            copies.add(List.copyOf(now));
            at = at.plusSeconds(30);
        }
        assertThat(handedOut).isEqualTo(copies);
        assertThat(handedOut.get(399)).hasSize(61).first().extracting(UsageSample::at)
                .isEqualTo(START.plusSeconds(30 * 399).minus(Duration.ofMinutes(30)));
    }

    @Test
    void theHistoryOfALogsListIsTheHistoryOfACopyAtEveryInstant() {
        Random random = new Random(17);
        for (int round = 0; round < 200; round++) {
            UsageSampleLog log = new UsageSampleLog();
            Instant at = START.plusNanos(random.nextInt(1_000_000_000));
            for (int i = 0; i < 1 + random.nextInt(150); i++) {
                log.append(new UsageSample("l", at, random.nextInt(5) / 10.0)); // ties in time now and then
                at = at.plusNanos(random.nextInt(3) == 0 ? 0 : random.nextInt(1_000_000_000)).plusSeconds(random.nextInt(60));
                if (random.nextInt(10) == 0) {
                    log.dropBefore(at.minusSeconds(random.nextInt(1800)));
                }
            }
            List<UsageSample> shared = log.samples();
            List<UsageSample> copy = new ArrayList<>(shared);
            for (Instant evaluated : instantsAround(shared, random)) {
                assertSameHistory(UsageHistory.of(shared, evaluated), UsageHistory.of(copy, evaluated), evaluated);
            }
        }
    }

    @Test
    void samplesAppendedOutOfOrderAreReadAsAnyUnorderedListIs() {
        UsageSampleLog log = new UsageSampleLog();
        log.append(new UsageSample("l", START.plusSeconds(60), 0.9));
        log.append(new UsageSample("l", START, 0.01));
        log.append(new UsageSample("l", START.plusSeconds(120), 0.01));
        List<UsageSample> copy = new ArrayList<>(log.samples());

        for (Instant evaluated : List.of(START, START.plusSeconds(90), START.plusSeconds(600))) {
            assertSameHistory(UsageHistory.of(log.samples(), evaluated), UsageHistory.of(copy, evaluated), evaluated);
        }
        assertThat(UsageHistory.of(log.samples(), START.plusSeconds(600)).idleSecondsBelow(0.05))
                .as("busy at +60 s, evaluated at +600 s").isEqualTo(540);
    }

    @Test
    void aLeasesFactFromALogsListIsTheFactFromACopyWhateverTheSources() {
        for (boolean mixed : new boolean[] {false, true}) {
            UsageSampleLog log = new UsageSampleLog();
            for (int i = 0; i < 20; i++) {
                UsageSample.Source source = mixed && i % 3 == 0 ? UsageSample.Source.DEVICE : UsageSample.Source.HEARTBEAT;
                log.append(new UsageSample("l1", START.plusSeconds(30L * i), i < 10 ? 0.6 : 0.02, source));
            }
            Instant now = START.plusSeconds(30 * 20);
            LeaseFact fromLog = factOf(Map.of("l1", log.samples()), now);
            LeaseFact fromCopy = factOf(Map.of("l1", List.copyOf(log.samples())), now);

            assertThat(fromLog).usingRecursiveComparison().ignoringFields("usage").isEqualTo(fromCopy);
            assertThat(fromLog.usageSource()).isEqualTo(mixed ? "DEVICE" : "HEARTBEAT");
            assertThat(fromLog.idleSecondsBelow(0.05)).isEqualTo(fromCopy.idleSecondsBelow(0.05));
        }
    }

    /** Lease l1's fact at {@code now}: one training GPU, heard now. */
    private static LeaseFact factOf(Map<String, List<UsageSample>> samples, Instant now) {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(now)
                .pool(new Pool("training", "training", PoolTier.TRAINING, null, false, null));
        Fleets.nodeOf(b, Fleets.node("n"), 1, g -> g.model("H100-SXM-80G").pool("training").lastHeartbeat(now));
        b.lease(Leases.lease("l1").tenant("t").pool("training").share("n-gpu0", 1000).createdAt(START).lastHeartbeat(now).build());
        return SnapshotFacts.of(b.build(), now, samples, UsageWindow.DEFAULT).leases().get(0);
    }

    /** The newest sample's instant, just before and after it, a middle sample's, and long after. */
    private static List<Instant> instantsAround(List<UsageSample> samples, Random random) {
        if (samples.isEmpty()) {
            return List.of(START, START.plusSeconds(random.nextInt(7200))); // every sample dropped
        }
        Instant newest = samples.get(samples.size() - 1).at();
        return List.of(newest, newest.minusNanos(1), newest.plusNanos(1), samples.get(samples.size() / 2).at(),
                samples.get(0).at().minusSeconds(1), newest.plusSeconds(random.nextInt(7200)));
    }

    private static void assertSameHistory(UsageHistory actual, UsageHistory expected, Instant at) {
        assertThat(actual.isEmpty()).as("empty at " + at).isEqualTo(expected.isEmpty());
        assertThat(actual.newestAgeSeconds()).as("newest age at " + at).isEqualTo(expected.newestAgeSeconds());
        for (double threshold : new double[] {0.0, 0.1, 0.25, 0.4, 1.0}) {
            assertThat(actual.idleSecondsBelow(threshold)).as("idle below " + threshold + " at " + at)
                    .isEqualTo(expected.idleSecondsBelow(threshold));
        }
        for (long seconds : new long[] {0, 30, 600, 3600, 7200}) {
            assertThat(actual.meanOver(seconds)).as("mean over " + seconds + " at " + at).isEqualTo(expected.meanOver(seconds));
        }
    }
}
