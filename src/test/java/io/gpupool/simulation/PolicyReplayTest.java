package io.gpupool.simulation;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.request.scheduling.SimulatedScheduler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.gpupool.simulation.ReplayFleet.T0;
import static io.gpupool.simulation.ReplayFleet.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Two policies over one workload: the summary with its deltas, the differing fates, the files. */
class PolicyReplayTest {
    private static final Simulation SIMULATION = new Simulation(DefaultPolicy.ENGINE,
            SimulatedScheduler.Settings.defaults(), Duration.ofMinutes(5));

    /** A busy afternoon: a borrower, an idle job, queued work and a lender claiming its guarantee back. */
    private static Workload afternoon() {
        List<Job> jobs = new ArrayList<>();
        jobs.add(job("vision-sweep", "vision", 8, Duration.ZERO).priorityClass("best-effort").runsFor(Duration.ofHours(3)).build());
        jobs.add(job("vision-borrow", "vision", 8, Duration.ofMinutes(1)).priorityClass("best-effort").utilisation(0.9).build());
        jobs.add(job("speech-idle", "speech", 2, Duration.ofMinutes(90)).utilisation(0.01).runsFor(Duration.ofHours(4)).build());
        for (int i = 0; i < 6; i++) {
            jobs.add(job("speech-" + i, "speech", 4, Duration.ofMinutes(30 + 10 * i)).runsFor(Duration.ofMinutes(40)).build());
        }
        return new Workload(jobs, T0, T0.plus(Duration.ofHours(5)), "afternoon");
    }

    private static CompiledPolicy withRuleFile(String path, java.util.function.UnaryOperator<String> edit) {
        Map<String, String> files = new HashMap<>(DefaultPolicy.RULE_SET.files());
        files.put(path, edit.apply(files.get(path)));
        return new PolicyCompiler().compile(new RuleSet("candidate", files)).orThrow();
    }

    @Test
    void aCandidateThatOnlyRenamesARuleGivesAZeroDelta() {
        CompiledPolicy renamed = withRuleFile("reclamation/reclamation.drl", drl -> drl.replace(
                "rule \"Training or experiment idle for an hour is reclaimed\"", "rule \"Idle training is reclaimed after an hour\""));
        PolicyReplay.Result result = PolicyReplay.run(SIMULATION, ReplayFleet.twoH100Nodes(), afternoon(), List.of(
                new PolicyReplay.Candidate("default", DefaultPolicy.POLICY), new PolicyReplay.Candidate("renamed", renamed)),
                (run, runs, label, done) -> { }, () -> false);

        List<ReplayReport.SummaryRow> summary = ReplayReport.summary(result, ReplayPricing.NONE);
        assertThat(summary).filteredOn(r -> r.policy().equals("renamed") && !r.group().startsWith("rule="))
                .allSatisfy(r -> assertThat(Double.isNaN(r.delta()) || r.delta() == 0).as(r.toString()).isTrue());
        assertThat(ReplayReport.differences(result, 10)).isEmpty();
        // the reclaim is there under both policies, each under its own rule name
        assertThat(summary).anySatisfy(r -> assertThat(r.group()).isEqualTo("rule=Training or experiment idle for an hour is reclaimed"));
        assertThat(summary).anySatisfy(r -> assertThat(r.group()).isEqualTo("rule=Idle training is reclaimed after an hour"));
    }

    @Test
    void aCandidateThatNeverReclaimsIdleWorkKeepsTheIdleJobAndListsItAmongTheDifferencesWithBothExplanations() {
        CompiledPolicy lenient = withRuleFile("reclamation/reclamation.drl", drl -> drl.replace(
                "idleSecondsBelow(0.05) >= 3600", "idleSecondsBelow(0.05) >= 360000"));
        PolicyReplay.Result result = PolicyReplay.run(SIMULATION, ReplayFleet.twoH100Nodes(), afternoon(), List.of(
                new PolicyReplay.Candidate("default", DefaultPolicy.POLICY), new PolicyReplay.Candidate("lenient", lenient)),
                (run, runs, label, done) -> { }, () -> false);

        ReplayReport.FateDifference idle = ReplayReport.differences(result, 10).stream()
                .filter(d -> d.other().id().equals("speech-idle")).findFirst().orElseThrow();
        assertThat(idle.baseline().end()).isEqualTo(JobFate.End.RECLAIMED);
        assertThat(idle.baseline().explanation()).contains("Training or experiment idle for an hour is reclaimed", "IDLE_1H");
        assertThat(idle.other().end()).isEqualTo(JobFate.End.HELD_AT_END);
        List<ReplayReport.SummaryRow> summary = ReplayReport.summary(result, ReplayPricing.NONE);
        ReplayReport.SummaryRow reclaimed = summary.stream()
                .filter(r -> r.policy().equals("lenient") && r.metric().equals("reclaimed_gpu_hours") && r.group().equals("all"))
                .findFirst().orElseThrow();
        assertThat(reclaimed.value()).isZero();
        assertThat(reclaimed.delta()).isNegative();
    }

    @Test
    void theOutputDirectoryGetsTheSummaryTheDifferencesTheFatesAndTheCharts(@TempDir Path tmp) throws Exception {
        PolicyReplay.Result result = PolicyReplay.run(SIMULATION, ReplayFleet.twoH100Nodes(), afternoon(),
                List.of(new PolicyReplay.Candidate("default", DefaultPolicy.POLICY)), (run, runs, label, done) -> { }, () -> false);
        Path out = tmp.resolve("replay");

        ReplayOutput.write(out, ReplayOutput.files(result, ReplayPricing.NONE));

        assertThat(Files.list(out).map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("summary.csv",
                "differences.csv", "fates.csv", "timeseries.csv", "allocated.png", "fragmentation.png", "queued.png");
        List<String> summary = Files.readAllLines(out.resolve("summary.csv"), StandardCharsets.UTF_8);
        assertThat(summary.get(0)).isEqualTo("policy,metric,group,value,delta_vs_default");
        assertThat(summary).contains("default,requests,all,9,0");
        assertThat(Files.readAllBytes(out.resolve("allocated.png"))).startsWith(0x89, 'P', 'N', 'G');
        assertThat(Files.list(tmp)).containsExactly(out); // no staging directory left behind
        assertThatThrownBy(() -> ReplayOutput.requireWritable(out)).hasMessageContaining("already holds a replay");
    }
}
