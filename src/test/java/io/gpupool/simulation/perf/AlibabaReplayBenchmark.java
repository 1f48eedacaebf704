package io.gpupool.simulation.perf;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.request.scheduling.SimulatedScheduler;
import io.gpupool.simulation.AlibabaTrace;
import io.gpupool.simulation.JobFate;
import io.gpupool.simulation.PolicyRun;
import io.gpupool.simulation.Simulation;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The Alibaba 2023 pod list with its lifetimes on its node list, replayed under the default policy
 * (issue 22: the default list on the 6,212-GPU node list in under 60 s within a 2 GiB heap).
 * {@code scripts/benchmark io.gpupool.simulation.perf.AlibabaReplayBenchmark [PODS NODES]}; prints the
 * load and replay times, the heap used and the fates.
 */
public final class AlibabaReplayBenchmark {
    public static void main(String[] args) throws Exception {
        Path pods = Path.of(args.length > 0 ? args[0] : "traces/alibaba-gpu-v2023/openb_pod_list_default.csv");
        Path nodes = Path.of(args.length > 1 ? args[1] : "traces/alibaba-gpu-v2023/openb_node_list_gpu_node.csv");
        long t0 = System.nanoTime();
        AlibabaTrace.Replayable trace = AlibabaTrace.load(pods.toString(), Files.readString(pods), nodes.toString(),
                Files.readString(nodes));
        var policy = DefaultPolicy.POLICY;
        long t1 = System.nanoTime();
        Simulation simulation = new Simulation(DefaultPolicy.ENGINE, SimulatedScheduler.Settings.defaults(), Duration.ofMinutes(30));
        PolicyRun run = simulation.run("default", policy, trace.fleet(), trace.workload(), Simulation.Progress.NONE, () -> false);
        long t2 = System.nanoTime();
        Map<JobFate.Outcome, Long> outcomes = run.fates().stream().collect(Collectors.groupingBy(JobFate::outcome, Collectors.counting()));
        Runtime rt = Runtime.getRuntime();
        System.out.printf("alibaba %s: %d jobs on %d GPUs over %s; load+compile %.1f s, replay %.1f s, %d decisions, heap used %d MiB (max %d MiB)%n",
                pods.getFileName(), run.fates().size(), trace.fleet().devices().size(),
                Duration.between(trace.workload().from(), trace.workload().to()), (t1 - t0) / 1e9, (t2 - t1) / 1e9,
                run.decisions(), (rt.totalMemory() - rt.freeMemory()) >> 20, rt.maxMemory() >> 20);
        System.out.println("outcomes " + outcomes + ", preemptions " + run.preemptions() + ", reclaimed " + run.reclaimedGpuHours());
    }
}
