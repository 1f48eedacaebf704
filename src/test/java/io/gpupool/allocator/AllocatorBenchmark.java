package io.gpupool.allocator;

import io.gpupool.allocator.strategy.StrategyRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Latency of one placement decision on a 10,000-GPU fleet (1,250 nodes × 8 GPUs, three models)
 * filled to about 70 % with a trace-like mix, for a rotating trace-like request. Sample mode, so
 * JMH reports p50/p99/p99.9. Run: see docs/performance.md ("Allocator and replay").
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AllocatorBenchmark {
    static final int NODES = 1250;
    static final int GPUS_PER_NODE = 8;

    @Param({"fgd-plus", "fgd", "bestfit"})
    public String strategy;

    @Param({"0.7"})
    public double fill;

    private Allocator allocator;
    private CapacityView view;
    private List<PlacementRequest> requests;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        Random random = new Random(42);
        CapacityViewBuilder fleet = CapacityView.builder().tieBreak(new Random(7));
        String[] models = {"G2", "G2", "G2", "V100M32", "G3"};
        for (int n = 0; n < NODES; n++) {
            fleet.node("node-" + n).cpuMilli(96_000).memoryMib(393_216).rack("rack-" + n / 40)
                    .gpus(GPUS_PER_NODE, models[n % models.length], 32_768, "nvl-" + n);
        }
        view = fleet.build();
        requests = new ArrayList<>();
        for (int i = 0; i < 4096; i++) {
            requests.add(traceLike(random, i));
        }
        WorkloadMix oracle = WorkloadMix.fromRequests(requests, WorkloadMix.PAPER_COVERAGE);
        allocator = new Allocator(StrategyRegistry.standard().create(strategy,
                new StrategySettings(42, strategy.equals("fgd") ? WorkloadEstimate.fixed(oracle) : null)));
        long target = (long) (fill * view.totalGpuMilli());
        long placed = 0;
        for (int i = 0; placed < target && i < 100_000; i++) {
            PlacementDecision d = allocator.place(view, requests.get(i % requests.size()));
            if (d.fits()) {
                view = view.apply(d.plan());
                placed += d.plan().totalMilli();
            }
        }
    }

    /** The default trace's rough mix: 13 % CPU-only, 38 % fractions, 48 % one GPU, 1 % multi-GPU. */
    static PlacementRequest traceLike(Random random, int i) {
        double u = random.nextDouble();
        PlacementRequestBuilder b = PlacementRequest.builder().id("r" + i).memoryMib(16_384 + random.nextInt(4) * 16_384);
        if (u < 0.13) {
            return b.cpuOnly().cpuMilli(8_000 + random.nextInt(3) * 4_000).build();
        }
        if (u < 0.51) {
            int[] milli = {810, 810, 810, 470, 470, 320, 650, 230, 460};
            return b.fraction(milli[random.nextInt(milli.length)]).cpuMilli(4_000 + random.nextInt(3) * 4_000).build();
        }
        if (u < 0.99) {
            return b.gpus(1).cpuMilli(11_300).build();
        }
        return b.gpus(new int[] {2, 4, 8}[random.nextInt(3)]).cpuMilli(32_000).build();
    }

    @Benchmark
    public PlacementDecision decide() {
        PlacementRequest r = requests.get(next);
        next = (next + 1) & (requests.size() - 1);
        return allocator.place(view, r);
    }

    public static void main(String[] args) throws Exception {
        new Runner(new OptionsBuilder().include(AllocatorBenchmark.class.getSimpleName()).build()).run();
    }
}
