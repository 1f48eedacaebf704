package io.gpupool.replay;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class ArrivalSequenceTest {
    private static List<TracePod> wholeGpuPods(int count) {
        return IntStream.range(0, count).mapToObj(i -> new TracePod(String.format("pod-%03d", i), 1000, 1024, 1, 1000,
                Set.of())).collect(Collectors.toList());
    }

    private static long total(List<TracePod> pods) {
        return pods.stream().mapToLong(TracePod::requestedMilli).sum();
    }

    @Test
    void theListIsPaddedWithResamplesUntilTheNextWouldPassOnePointThreeTimesCapacity() {
        List<TracePod> seq = ArrivalSequence.of(wholeGpuPods(10), new Random(42), 10_000, 1.3);

        assertThat(seq).hasSize(13);
        assertThat(total(seq)).isEqualTo(13_000);
        assertThat(seq.subList(0, 10)).extracting(TracePod::name).doesNotHaveDuplicates()
                .allMatch(n -> !n.contains("resample"));
        assertThat(seq.subList(10, 13)).extracting(TracePod::name).allMatch(n -> n.contains("resample"))
                .doesNotHaveDuplicates();
    }

    @Test
    void aListAlreadyAboveTheLimitIsTrimmedByRandomRemovals() {
        List<TracePod> seq = ArrivalSequence.of(wholeGpuPods(20), new Random(42), 10_000, 1.3);

        assertThat(total(seq)).isEqualTo(13_000);
        assertThat(seq).extracting(TracePod::name).doesNotHaveDuplicates().noneMatch(n -> n.contains("resample"));
    }

    @Test
    void theOrderDependsOnTheSeedOnlyNotOnTheFileOrder() {
        List<TracePod> pods = wholeGpuPods(50);
        List<TracePod> reversed = new ArrayList<>(pods);
        Collections.reverse(reversed);

        List<TracePod> a = ArrivalSequence.of(pods, new Random(7), 100_000, 1.3);
        List<TracePod> b = ArrivalSequence.of(reversed, new Random(7), 100_000, 1.3);
        List<TracePod> c = ArrivalSequence.of(pods, new Random(8), 100_000, 1.3);

        assertThat(a).isEqualTo(b);
        assertThat(a).isNotEqualTo(c);
    }
}
