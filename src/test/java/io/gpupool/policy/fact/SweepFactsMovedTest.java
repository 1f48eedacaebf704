package io.gpupool.policy.fact;

import io.gpupool.domain.lease.UsageSample;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.testing.LeaseChurn;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A dry-run's sweep runs on the model the grace periods' end left, at the start's instant and over
 * the start's usage samples: {@link SnapshotFacts#movedTo} gives those facts from the start's and a
 * tracker's instead of deriving the fleet again.
 */
class SweepFactsMovedTest {
    @ParameterizedTest(name = "seed {0}: facts moved a few commits on equal a fresh derivation, and keep the untouched leases' facts")
    @ValueSource(longs = {1, 2, 3})
    void factsMovedAFewCommitsOnEqualAFreshDerivationAndKeepTheUntouchedLeasesFacts(long seed) {
        LeaseChurn churn = new LeaseChurn(seed);
        PoolSnapshot start = churn.fleet();
        List<PoolSnapshot> chain = new ArrayList<>();
        PoolSnapshot s = start;
        for (int step = 0; step < 40; step++) {
            s = churn.step(s); // places, releases, notices, renewals, quota and device-health changes
            chain.add(s);
        }
        Instant now = chain.get(chain.size() - 1).takenAt().plusSeconds(5);
        List<UsageSample> samples = samplesOfEveryLease(start, chain, new Random(seed));
        SnapshotFacts atStart = SnapshotFacts.of(start, now, samples, UsageWindow.DEFAULT);
        atStart.leases(); // as a dry-run prepares them

        FactsTracker tracker = new FactsTracker();
        tracker.of(start);
        int kept = 0;
        for (int i = 0; i < chain.size(); i++) {
            PoolSnapshot model = chain.get(i);
            SnapshotFacts moved = atStart.movedTo(tracker.of(model));
            SnapshotFacts fresh = SnapshotFacts.of(model, now, samples, UsageWindow.DEFAULT);
            assertThat(moved.now()).isEqualTo(now);
            assertThat(moved.leases()).as("lease facts %d commits on", i + 1)
                    .usingRecursiveFieldByFieldElementComparator().containsExactlyElementsOf(fresh.leases());
            assertThat(moved.usage()).as("usage rows %d commits on", i + 1).isEqualTo(fresh.usage());
            assertThat(moved.pools()).as("pool facts %d commits on", i + 1).isEqualTo(fresh.pools());
            assertThat(moved.tenants()).containsExactlyElementsOf(fresh.tenants());
            assertThat(moved.devices()).as("device facts %d commits on", i + 1).isEqualTo(fresh.devices());
            for (LeaseFact fact : moved.leases()) {
                if (atStart.leases().stream().anyMatch(f -> f == fact)) {
                    kept++;
                    assertThat(model.leases().get(fact.leaseId())).as("a kept fact's lease is unchanged")
                            .isSameAs(start.leases().get(fact.leaseId()));
                }
            }
        }
        assertThat(kept).as("facts of leases no commit touched are the start's own objects").isPositive();
    }

    @ParameterizedTest(name = "seed {0}: without the start's lease facts derived, moving derives them all")
    @ValueSource(longs = {5})
    void withoutTheStartsLeaseFactsDerivedMovingDerivesThemAll(long seed) {
        LeaseChurn churn = new LeaseChurn(seed);
        PoolSnapshot start = churn.fleet();
        PoolSnapshot model = churn.step(churn.step(start));
        Instant now = model.takenAt();
        SnapshotFacts atStart = SnapshotFacts.of(start, now, List.of(), UsageWindow.DEFAULT);
        FactsTracker tracker = new FactsTracker();
        tracker.of(start);

        SnapshotFacts moved = atStart.movedTo(tracker.of(model));

        assertThat(moved.leases()).usingRecursiveFieldByFieldElementComparator()
                .containsExactlyElementsOf(SnapshotFacts.of(model, now, List.of(), UsageWindow.DEFAULT).leases());
    }

    private static List<UsageSample> samplesOfEveryLease(PoolSnapshot start, List<PoolSnapshot> chain, Random random) {
        Set<String> ids = new LinkedHashSet<>(start.leases().keySet());
        chain.forEach(s -> ids.addAll(s.leases().keySet()));
        Instant t = start.takenAt();
        List<UsageSample> samples = new ArrayList<>();
        for (String id : ids) {
            for (int k = 0; k < 3; k++) {
                samples.add(new UsageSample(id, t.minusSeconds(60L * k + random.nextInt(30)), random.nextDouble(),
                        k == 0 && random.nextBoolean() ? UsageSample.Source.DEVICE : UsageSample.Source.HEARTBEAT));
            }
        }
        return samples;
    }
}
