package io.gpupool.simulation;

import io.gpupool.accounting.AccountingSettings;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.fleet.FleetImporter;
import io.gpupool.policy.engine.EvaluationLimits;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.snapshot.PoolSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A replay job in a child JVM (issue 22, "a replay job never slows the live service's lease path"):
 * the child replays exactly what the service prepared and gives the files an in-service run gives,
 * runs at the lowest priority in a scheduling group of its own, and ends when killed or when it
 * fails, saying why.
 */
class ReplayChildProcessTest {
    @TempDir
    Path workDir;

    /** Coarse intervals, a few thousand ticks for the example day: the child's JVM start costs enough on a loaded machine. */
    static final io.gpupool.request.scheduling.SimulatedScheduler.Settings COARSE = new io.gpupool.request.scheduling.SimulatedScheduler.Settings(
            Duration.ofSeconds(30), Duration.ofMinutes(5), Duration.ofMinutes(1), 32, Duration.ofSeconds(30), UnbudgetedSettings.DEFAULTS.passBudget());

    /** The first {@code requests} of the example day on the example fleet, under the default and inference-first policies, priced. */
    static ReplayJobs.Prepared exampleDay(int requests) throws Exception {
        List<String> lines = Files.readAllLines(Path.of("policies-examples/workload/example-day.csv"));
        String csv = String.join("\n", lines.subList(0, Math.min(lines.size(), requests + 1))) + "\n";
        PoolSnapshot fleet = FleetImporter.applied(PoolSnapshot.empty(), Files.readString(Path.of("policies-examples/fleet/enterprise-fleet.yaml")));
        return new ReplayJobs.Prepared(fleet, WorkloadCsv.parse("workload", csv, null),
                List.of(RuleSetPolicies.load("default"), RuleSetPolicies.load("policies-examples/inference-first")),
                COARSE, Duration.ofMinutes(10), new ReplayPricing(PriceFile.parse("prices",
                Files.readString(Path.of("policies-examples/prices/example-prices.json"))), AccountingSettings.IdlePayer.USERS));
    }

    @Test
    void aJobRunsInAChildProcessAndGivesTheInThreadResultFileByFile() throws Exception {
        ReplayJobs.Prepared prepared = exampleDay(40);
        AtomicReference<ProcessHandle> child = new AtomicReference<>();
        List<Double> progress = new ArrayList<>();

        ReplayJobs.Outcome inChild = new ReplayChildProcess(workDir, "512m").run(prepared, EvaluationLimits.DEFAULT, 1.0, 1.0,
                (run, runs, label, done) -> progress.add((run + done) / runs), p -> child.set(p.toHandle()));
        ReplayJobs.Outcome inThread = ReplayJobs.replay(new PolicyEngine(EvaluationLimits.DEFAULT), prepared, (run, runs, label, done) -> { },
                () -> false);

        assertThat(child.get()).isNotNull();
        assertThat(child.get().pid()).isNotEqualTo(ProcessHandle.current().pid());
        assertThat(progress).as("progress reported from the child").isNotEmpty().isSorted();
        assertThat(inChild.files().keySet()).containsExactlyElementsOf(inThread.files().keySet());
        inThread.files().forEach((name, bytes) -> assertThat(inChild.files().get(name)).as(name).isEqualTo(bytes));
        assertThat(inChild.summary()).isEqualTo(inThread.summary());
        assertThat(new String(inChild.files().get("summary.csv"))).contains("cost_");
        try (var left = Files.list(workDir)) {
            assertThat(left).as("job directories left behind").isEmpty();
        }
    }

    @Test
    void theJobFilesGiveBackTheFleetAndWorkloadRecordForRecord() throws Exception {
        ReplayJobs.Prepared day = exampleDay(10);
        Instant at = Instant.parse("2026-03-02T09:00:00Z");
        // a recorded request keeps what the generic CSV has no column for: MIG profile, memory, labels, topology
        GpuRequest recorded = new GpuRequest("r-recorded", "vision", "key-1", WorkloadKind.INFERENCE, 1, 1000, "1g.10gb",
                List.of("A100-SXM4-80GB"), 40_000, List.of("nvlink"), 1, "NODE", true, "inference", "high", false, 3600,
                RequestState.QUEUED, 7, null, null, at, at);
        Job job = new Job(recorded, at, Duration.ofMinutes(5), null, Double.NaN, at.plusSeconds(90), "request r-recorded");
        Workload workload = new Workload(List.of(job), at.minusSeconds(60), at.plusSeconds(3600), "history: 1 request");
        PoolSnapshot fleet = day.fleet().toBuilder().request(recorded).build();
        ReplayJobs.Prepared prepared = new ReplayJobs.Prepared(fleet, workload, day.candidates(), day.settings(),
                Duration.ofMinutes(3), day.pricing());

        ReplayJobFiles.write(workDir, prepared, new EvaluationLimits(5, 2, Duration.ofSeconds(3)), 0.2, 0.3);
        ReplayJobFiles.Read read = ReplayJobFiles.read(workDir);

        assertThat(read.prepared().workload()).isEqualTo(workload);
        assertThat(ReplayJobFiles.Fleet.of(read.prepared().fleet())).isEqualTo(ReplayJobFiles.Fleet.of(fleet));
        assertThat(read.prepared().fleet().queued()).containsKey("r-recorded");
        assertThat(read.prepared().candidates()).extracting(PolicyReplay.Candidate::label)
                .containsExactly("default", "policies-examples/inference-first");
        assertThat(read.prepared().candidates()).extracting(c -> c.policy().ruleSet())
                .containsExactlyElementsOf(prepared.candidates().stream().map(c -> c.policy().ruleSet()).toList());
        assertThat(read.prepared().settings()).isEqualTo(prepared.settings());
        assertThat(read.prepared().sampleEvery()).isEqualTo(Duration.ofMinutes(3));
        assertThat(read.prepared().pricing().prices().rates()).isEqualTo(prepared.pricing().prices().rates());
        assertThat(read.prepared().pricing().idlePayer()).isEqualTo(AccountingSettings.IdlePayer.USERS);
        assertThat(read.limits()).isEqualTo(new EvaluationLimits(5, 2, Duration.ofSeconds(3)));
        assertThat(read.cpuShare()).isEqualTo(0.2);
        assertThat(read.machineBusy()).isEqualTo(0.3);
    }

    @Test
    void aKilledChildLeavesNoProcessAndNoResult() throws Exception {
        ReplayJobs.Prepared prepared = exampleDay(120);
        CompletableFuture<Process> started = new CompletableFuture<>();
        ReplayChildProcess children = new ReplayChildProcess(workDir, "512m");
        CompletableFuture<ReplayJobs.Outcome> run = CompletableFuture.supplyAsync(() -> children.run(prepared, EvaluationLimits.DEFAULT,
                1.0, 1.0, (r, runs, label, done) -> { }, started::complete));
        Process child = started.get(60, TimeUnit.SECONDS);
        List<ProcessHandle> tree = new ArrayList<>(child.descendants().toList());
        tree.add(child.toHandle());

        ReplayChildProcess.kill(child);

        assertThatThrownBy(() -> run.get(60, TimeUnit.SECONDS)).hasCauseInstanceOf(ReplayChildProcess.Failed.class)
                .hasMessageContaining("killed by signal 9");
        for (ProcessHandle p : tree) {
            assertThat(p.onExit().get(10, TimeUnit.SECONDS).isAlive()).as("process " + p.pid()).isFalse();
        }
        assertThat(ChildProcesses.replayChildren()).isEmpty();
    }

    @Test
    void aChildKilledBeforeItsProgressIsReadIsReportedKilledNotAsNeverStarted() {
        // The kill closes the child's streams (Process.destroyForcibly does) before the first progress
        // line is read: the order a cancellation racing the reader sometimes gives, made certain here.
        ReplayChildProcess children = new ReplayChildProcess(workDir, "512m");

        assertThatThrownBy(() -> children.run(exampleDay(120), EvaluationLimits.DEFAULT, 1.0, 1.0,
                (r, runs, label, done) -> { }, ReplayChildProcess::kill))
                .isInstanceOf(ReplayChildProcess.Failed.class).hasMessageContaining("killed by signal 9");
        assertThat(ChildProcesses.replayChildren()).isEmpty();
    }

    @Test
    void theChildRunsAtNice19InAnAutogroupOfItsOwnAtNice19() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(Path.of("/proc/self/stat")), "Linux only");
        ReplayChildProcess children = new ReplayChildProcess(workDir, "512m");
        assertThat(children.command(workDir)).startsWith("setsid", "-w", "sh", "-c", ReplayChildProcess.LOWERED);
        ReplayJobs.Prepared prepared = exampleDay(120);
        CompletableFuture<Process> started = new CompletableFuture<>();
        CompletableFuture<ReplayJobs.Outcome> run = CompletableFuture.supplyAsync(() -> children.run(prepared,
                EvaluationLimits.DEFAULT, 1.0, 1.0, (r, runs, label, done) -> { }, started::complete));
        Process child = started.get(60, TimeUnit.SECONDS);
        try {
            ChildProcesses.awaitJava(child.toHandle());

            assertThat(ChildProcesses.nice(child.pid())).isEqualTo(19);
            assertThat(ChildProcesses.sessionId(child.pid())).as("a session of its own").isEqualTo(child.pid())
                    .isNotEqualTo(ChildProcesses.sessionId(ProcessHandle.current().pid()));
            if (Files.exists(Path.of("/proc/self/autogroup"))) {
                assertThat(ChildProcesses.autogroup(child.pid())).endsWith("nice 19");
            }
        } finally {
            ReplayChildProcess.kill(child);
            run.handle((o, x) -> null).get(60, TimeUnit.SECONDS);
        }
    }
}
