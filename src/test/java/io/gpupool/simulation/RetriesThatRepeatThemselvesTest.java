package io.gpupool.simulation;

import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.request.scheduling.SimulatedScheduler;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.PolicyFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.gpupool.simulation.ReplayFleet.T0;
import static io.gpupool.simulation.ReplayFleet.job;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queued request whose last retry left it as it was, its victim searches (if any) each proven to
 * name nobody from the pool's leases alone, is not planned again while the request, policy's
 * remembered answer, the reserved GPUs, the inventory, the leases on its pools' nodes and what the
 * preemption memory says its classes named all stand; only the searches' proofs are asked again
 * ({@code request.decision.RepeatedRetries}; the live pass and the dry-run do the same). Replayed
 * both ways — every retry planned, as before, against repeats answered — the replay's files are
 * byte for byte the same and so is every decision.
 */
class RetriesThatRepeatThemselvesTest {
    private static final SimulatedScheduler.Settings SETTINGS = UnbudgetedSettings.DEFAULTS;

    @Test
    void aRequestWaitingOnQuotaIsNotPlannedAgainWhileOnlyHeartbeatsChange() {
        // vision holds its guarantee and all it may borrow for two hours; its third job waits on
        // quota. Every sweep states the holders' heartbeats (a new model, but no GPU taken or given
        // back): the waiting job's retries repeat themselves until vision's GPUs come back.
        Workload workload = new Workload(List.of(
                job("vision-a", "vision", 8, Duration.ZERO).runsFor(Duration.ofHours(2)).build(),
                job("vision-b", "vision", 8, Duration.ofSeconds(10)).runsFor(Duration.ofHours(2)).build(),
                job("vision-waits", "vision", 4, Duration.ofMinutes(5)).runsFor(Duration.ofMinutes(30)).build()),
                T0, T0.plus(Duration.ofHours(3)), "quota");

        PolicyRun everyRetry = replay(workload, false);
        PolicyRun repeatsAnswered = replay(workload, true);

        assertThat(repeatsAnswered.fates()).usingRecursiveComparison().isEqualTo(everyRetry.fates());
        assertThat(repeatsAnswered.decisions()).isEqualTo(everyRetry.decisions());
        assertThat(fate(repeatsAnswered, "vision-waits").placedAt()).isAfterOrEqualTo(T0.plus(Duration.ofHours(2)));
        assertThat(everyRetry.work().retriesRepeated()).isZero();
        assertThat(repeatsAnswered.work().retriesRepeated()).isPositive();
    }

    @Test
    void aRequestWaitingForAVictimPreemptsItTheMomentTheVictimOutgrowsItsProtectionWithoutAnyLeaseChanging() {
        // speech's best-effort job fills the one node, within speech's guarantee (the pool promises
        // both tenants the whole node). vision's high-priority job, within its own guarantee,
        // searches for victims: the default policy protects leases younger than ten minutes, so its
        // searches are proven empty and its retries repeat themselves. Ten minutes and five seconds
        // into speech's job, speech submits a small job of its own: no lease changes (it queues), but
        // the model is now taken at 10:15, when the best-effort lease is past its protection. The
        // proof, asked again at vision's repeat, fails; its retry is planned and preempts the lease
        // at that pass, as when every retry is planned (were the proof not asked again, vision's
        // retry would be answered as a repeat and speech's own small job would preempt it instead).
        Workload workload = new Workload(List.of(
                job("speech-best-effort", "speech", 8, Duration.ofSeconds(10)).priorityClass("best-effort")
                        .runsFor(Duration.ofHours(2)).build(),
                job("vision-high", "vision", 8, Duration.ofMinutes(1)).priorityClass("high")
                        .runsFor(Duration.ofMinutes(30)).build(),
                job("speech-small", "speech", 1, Duration.ofSeconds(615)).runsFor(Duration.ofMinutes(5)).build()),
                T0, T0.plus(Duration.ofHours(3)), "protection");

        PolicyRun everyRetry = replay(workload, false, oneNodePromisedToBoth());
        PolicyRun repeatsAnswered = replay(workload, true, oneNodePromisedToBoth());

        assertThat(repeatsAnswered.fates()).usingRecursiveComparison().isEqualTo(everyRetry.fates());
        assertThat(repeatsAnswered.decisions()).isEqualTo(everyRetry.decisions());

        assertThat(repeatsAnswered.preemptions()).isEqualTo(everyRetry.preemptions()).isEqualTo(1);
        // placed when the grace period of the notice given at 10:15 is over, long before the victim would end
        assertThat(fate(repeatsAnswered, "vision-high").placedAt()).isEqualTo(T0.plus(Duration.ofSeconds(615 + 30)));
        assertThat(repeatsAnswered.work().retriesRepeated()).isPositive();
    }

    @Test
    void aRequestWaitingOnCapacityIsPlacedTheMomentItsPoolGetsGpusBackUnderRulesThatNeverAskForRoom() {
        // Without the preemption rules no rule of the default set reads a pool's free capacity, so
        // policy's remembered answer stands when GPUs come back: what tells the waiting job's retry
        // that it is no repeat is the leases on its pool's nodes (and the preemption memory, which
        // forgets what it learnt about the cards given back).
        CompiledPolicy noPreemption = new PolicyCompiler().compile(RuleSet.draft(withoutPreemption())
                .withVersion("no-preemption")).orThrow();
        Workload workload = new Workload(List.of(
                job("speech-a", "speech", 8, Duration.ZERO).runsFor(Duration.ofHours(1)).build(),
                job("vision-waits", "vision", 8, Duration.ofMinutes(1)).runsFor(Duration.ofMinutes(30)).build()),
                T0, T0.plus(Duration.ofHours(2)), "capacity");

        PolicyRun everyRetry = simulation(false).run("no-preemption", noPreemption, oneNodePromisedToBoth(), workload,
                Simulation.Progress.NONE, () -> false);
        PolicyRun repeatsAnswered = simulation(true).run("no-preemption", noPreemption, oneNodePromisedToBoth(), workload,
                Simulation.Progress.NONE, () -> false);

        assertThat(repeatsAnswered.fates()).usingRecursiveComparison().isEqualTo(everyRetry.fates());
        assertThat(fate(repeatsAnswered, "vision-waits").placedAt()).isEqualTo(T0.plus(Duration.ofHours(1)));
        assertThat(repeatsAnswered.work().retriesRepeated()).isPositive();
    }

    private static Map<String, String> withoutPreemption() {
        Map<String, String> files = PolicyFiles.defaults();
        files.keySet().removeIf(path -> path.startsWith("preemption/"));
        return files;
    }

    @ParameterizedTest(name = "seed {0} under {1}")
    @CsvSource({"1, default", "2, default", "1, policies-examples/tiered-enterprise"})
    void answeringRetriesThatRepeatThemselvesWritesTheSameFilesAsPlanningEveryRetry(long seed, String policy,
                                                                                   @TempDir Path dir) throws IOException {
        Workload workload = EquivalentReplays.benchmarkWorkload(seed, dir);
        PolicyReplay.Candidate candidate = RuleSetPolicies.load(policy);

        PolicyReplay.Result everyRetry = EquivalentReplays.replay(simulation(false), workload, candidate);
        PolicyReplay.Result repeatsAnswered = EquivalentReplays.replay(simulation(true), workload, candidate);

        EquivalentReplays.assertSameFiles(everyRetry, repeatsAnswered);
        // and retries were answered as repeats, searching ones among them, or this compares nothing
        assertThat(repeatsAnswered.baseline().work().retriesRepeated()).isPositive();
        assertThat(repeatsAnswered.baseline().work().searchesProvenByPool())
                .isGreaterThan(0);
    }

    private static JobFate fate(PolicyRun run, String id) {
        return run.fates().stream().filter(f -> f.id().equals(id)).findFirst().orElseThrow();
    }

    private static Simulation simulation(boolean skipUnchanged) {
        return new Simulation(DefaultPolicy.ENGINE, SETTINGS, Duration.ofMinutes(10), skipUnchanged);
    }

    private static PolicyRun replay(Workload workload, boolean skipUnchanged) {
        return replay(workload, skipUnchanged, ReplayFleet.twoH100Nodes());
    }

    private static PolicyRun replay(Workload workload, boolean skipUnchanged, PoolSnapshot fleet) {
        return simulation(skipUnchanged).run("default", DefaultPolicy.POLICY, fleet, workload,
                Simulation.Progress.NONE, () -> false);
    }

    /** One 8×H100 node in the training pool, each of vision and speech guaranteed all eight GPUs. */
    private static PoolSnapshot oneNodePromisedToBoth() {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(T0);
        b.pool(new Pool("training", "training", PoolTier.TRAINING, "pack", false, null));
        for (String tenant : new String[]{"vision", "speech"}) {
            b.tenant(new Tenant(tenant, tenant, null, null));
            b.quota(new Quota(tenant, "training", Quota.ANY_MODEL, 8, 8, 8));
        }
        Fleets.nodeOf(b, Fleets.node("fra-h100-01"), 8, gpu -> gpu.model("H100-SXM-80G").shareMode(ShareMode.EXCLUSIVE)
                .pool("training").lastHeartbeat(T0));
        return b.build();
    }

}
