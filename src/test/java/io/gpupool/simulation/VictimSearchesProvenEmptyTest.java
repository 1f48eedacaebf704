package io.gpupool.simulation;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.engine.EvaluationLimits;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.request.scheduling.SimulatedScheduler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static io.gpupool.simulation.ReplayFleet.job;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A victim search whose evaluation no rule that can name a victim could fire in is not evaluated
 * ({@code policy.engine.PreemptingRules}; the live service's searches do the same). Replayed both
 * ways — every search evaluated, as before, against the proven-empty ones skipped — the replay's
 * files are byte for byte the same, every decision too, and a lender claiming its guarantee back
 * still preempts the borrower (a victim named through a comparison with the request). Most searches
 * are proven on their pool's leases alone, judged once per pool state ({@code SnapshotFacts.victimSearchProven}),
 * the rest on their own facts.
 */
class VictimSearchesProvenEmptyTest {
    private static final SimulatedScheduler.Settings SETTINGS = UnbudgetedSettings.DEFAULTS;

    @Test
    void aLenderClaimingItsGuaranteeBackStillPreemptsTheBorrower() {
        // vision borrows speech's idle guarantee; then speech wants it back and must preempt vision's
        // borrowed lease: the lender rule names it through a comparison with the request
        // (tenantId != $r.tenantId), which the proof evaluates, so the search is not skipped.
        Workload workload = new Workload(List.of(
                job("vision-a", "vision", 8, Duration.ZERO).runsFor(Duration.ofHours(3)).build(),
                job("vision-b", "vision", 8, Duration.ofSeconds(10)).runsFor(Duration.ofHours(3)).build(),
                job("vision-c", "vision", 4, Duration.ofMinutes(5)).runsFor(Duration.ofMinutes(30)).build(),
                job("speech-a", "speech", 8, Duration.ofMinutes(40)).runsFor(Duration.ofMinutes(30)).build()),
                ReplayFleet.T0, ReplayFleet.T0.plus(Duration.ofHours(4)), "lender");

        PolicyRun everySearch = new Simulation(engine(false), SETTINGS, Duration.ofMinutes(5)).run("default",
                DefaultPolicy.POLICY, ReplayFleet.twoH100Nodes(), workload, Simulation.Progress.NONE, () -> false);
        PolicyRun proven = new Simulation(engine(true), SETTINGS, Duration.ofMinutes(5)).run("default",
                DefaultPolicy.POLICY, ReplayFleet.twoH100Nodes(), workload, Simulation.Progress.NONE, () -> false);

        assertThat(proven.fates()).usingRecursiveComparison().isEqualTo(everySearch.fates());
        assertThat(proven.decisions()).isEqualTo(everySearch.decisions());
        assertThat(proven.preemptions()).isEqualTo(everySearch.preemptions()).isPositive();
        assertThat(everySearch.work().searchesProvenEmpty()).isZero();
    }

    @ParameterizedTest(name = "seed {0} under {1}")
    @CsvSource({"1, default", "2, default", "1, policies-examples/tiered-enterprise"})
    void skippingSearchesProvenEmptyWritesTheSameFilesAsEvaluatingEverySearch(long seed, String policy,
                                                                              @TempDir Path dir) throws IOException {
        Workload workload = EquivalentReplays.benchmarkWorkload(seed, dir);
        PolicyReplay.Candidate candidate = RuleSetPolicies.load(policy);

        PolicyReplay.Result everySearch = EquivalentReplays.replay(new Simulation(engine(false), SETTINGS, Duration.ofMinutes(10)),

                workload, candidate);
        PolicyReplay.Result proven = EquivalentReplays.replay(new Simulation(engine(true), SETTINGS, Duration.ofMinutes(10)),
                workload, candidate);

        EquivalentReplays.assertSameFiles(everySearch, proven);
        // and searches were skipped, or this compares nothing; most on their pool's leases alone
        // (no search facts derived), the rest on their own facts
        assertThat(proven.baseline().work().searchesProvenEmpty()).isPositive();
        assertThat(proven.baseline().work().searchesProvenByPool()).isPositive();
    }

    private static PolicyEngine engine(boolean provesNoVictim) {
        return new PolicyEngine(EvaluationLimits.DEFAULT, true, provesNoVictim);
    }

}
