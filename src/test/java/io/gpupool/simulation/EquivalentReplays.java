package io.gpupool.simulation;

import io.gpupool.fleet.FleetImporter;
import io.gpupool.simulation.perf.PolicyReplayWeekBenchmark;
import io.gpupool.snapshot.PoolSnapshot;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the tests of a replay shortcut compare: the replay benchmark's fleet (the example fleet) and
 * two hours of its workload, replayed with the shortcut and without it, must write the same files
 * byte for byte.
 */
final class EquivalentReplays {
    private EquivalentReplays() {
    }

    /** The benchmark's fleet at its smallest (the example fleet), made once. */
    static PoolSnapshot exampleFleet() {
        return Fleet.SNAPSHOT;
    }

    /** How many GPUs the example fleet has (the benchmark's workload is sized by them). */
    static int exampleFleetGpus() {
        return Fleet.GPUS;
    }

    /** Two hours of the benchmark's workload (seeded resamples of the example day) on the example fleet. */
    static Workload benchmarkWorkload(long seed, Path dir) throws IOException {
        Path file = dir.resolve("workload.csv");
        PolicyReplayWeekBenchmark.writeWorkload(file, 2400, 1, Fleet.GPUS, 2, new Random(seed));
        return WorkloadCsv.parse("workload.csv", Files.readString(file), null);
    }

    /** {@code candidate} replayed by {@code simulation} over {@code workload} on the example fleet. */
    static PolicyReplay.Result replay(Simulation simulation, Workload workload, PolicyReplay.Candidate candidate) {
        return PolicyReplay.run(simulation, exampleFleet(), workload, List.of(candidate), (run, runs, label, done) -> { },
                () -> false);
    }

    /** Both replays wrote the same files, byte for byte, and logged as many decisions. */
    static void assertSameFiles(PolicyReplay.Result expected, PolicyReplay.Result actual) {
        Map<String, byte[]> wanted = ReplayOutput.files(expected, ReplayPricing.NONE);
        Map<String, byte[]> written = ReplayOutput.files(actual, ReplayPricing.NONE);
        assertThat(written.keySet()).isEqualTo(wanted.keySet());
        for (String name : wanted.keySet()) {
            assertThat(written.get(name)).as(name).isEqualTo(wanted.get(name));
        }
        assertThat(actual.baseline().decisions()).isEqualTo(expected.baseline().decisions());
    }

    private static final class Fleet {
        static final int GPUS;
        static final PoolSnapshot SNAPSHOT;

        static {
            try {
                Path file = Files.createTempFile("example-fleet", ".yaml");
                try {
                    GPUS = PolicyReplayWeekBenchmark.writeFleet(file, 1);
                    SNAPSHOT = FleetImporter.applied(PoolSnapshot.empty(), Files.readString(file));
                } finally {
                    Files.deleteIfExists(file);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
