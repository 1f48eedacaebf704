package io.gpupool.clustersync;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A node's counts and memory quantities as the importers read them: the value, or a problem naming node and field. */
class NodeValuesTest {
    private final List<String> problems = new ArrayList<>();
    private final NodeValues values = new NodeValues("items[2] (node gpu-07)", problems);

    @ParameterizedTest(name = "''{0}'' counts {1}")
    @CsvSource({"0, 0", "8, 8", "' 16 ', 16", "+4, 4"})
    void aCountIsAWholeNumberOfZeroOrMore(String raw, long expected) {
        assertThat(values.count("gpu.count", raw)).isEqualTo(expected);
        assertThat(values.clean()).isTrue();
        assertThat(problems).isEmpty();
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"", "  "})
    void anAbsentCountOrMemoryIsNoValueAndNoProblem(String raw) {
        assertThat(values.count("gpu.count", raw)).isNull();
        assertThat(values.count("gpu.count", null)).isNull();
        assertThat(values.mib("gpu.memory", raw)).isNull();
        assertThat(values.mib("gpu.memory", null)).isNull();
        assertThat(values.clean()).isTrue();
    }

    @ParameterizedTest(name = "''{0}'': {1}")
    @CsvSource(delimiter = '|', value = {
            "-1    | items[2] (node gpu-07).gpu.count: a count must be >= 0, was -1",
            "8k    | items[2] (node gpu-07).gpu.count: unknown unit 'k' on a count, was '8k'",
            "2.5   | items[2] (node gpu-07).gpu.count: expected a whole number, was '2.5'",
            "eight | items[2] (node gpu-07).gpu.count: expected a whole number, was 'eight'",
    })
    void aCountThatIsNotAWholeNumberOfZeroOrMoreIsAProblemNamingNodeAndField(String raw, String problem) {
        assertThat(values.count("gpu.count", raw)).isNull();
        assertThat(values.clean()).isFalse();
        assertThat(problems).containsExactly(problem);
    }

    @ParameterizedTest(name = "''{0}'' is {1} MiB")
    @CsvSource({"81559, 81559", "1, 1", "40960Mi, 40960", "40960 MiB, 40960", "80Gi, 81920", "1.5 GiB, 1536", "0.5Gi, 512"})
    void memoryIsAPlainNumberOfMibOrAQuantityInMiOrGi(String raw, long mib) {
        assertThat(values.mib("gpu.memory", raw)).isEqualTo(mib);
        assertThat(problems).isEmpty();
    }

    @ParameterizedTest(name = "''{0}'': {1}")
    @CsvSource(delimiter = '|', value = {
            "0     | items[2] (node gpu-07).gpu.memory: memory must be > 0 MiB, was 0",
            "-5    | items[2] (node gpu-07).gpu.memory: memory must be > 0 MiB, was -5",
            "0Gi   | items[2] (node gpu-07).gpu.memory: memory must be > 0, was '0Gi'",
            "-1Gi  | items[2] (node gpu-07).gpu.memory: memory must be > 0, was '-1Gi'",
            "80GB  | items[2] (node gpu-07).gpu.memory: unknown unit 'GB' (GPU Feature Discovery writes MiB as a plain number; Mi, MiB, Gi, GiB are read too), was '80GB'",
            "lots  | items[2] (node gpu-07).gpu.memory: expected MiB as a whole number, was 'lots'",
            "1.5   | items[2] (node gpu-07).gpu.memory: expected MiB as a whole number, was '1.5'",
    })
    void memoryThatIsNotAPositiveQuantityIsAProblemNamingNodeAndField(String raw, String problem) {
        assertThat(values.mib("gpu.memory", raw)).isNull();
        assertThat(problems).containsExactly(problem);
    }

    @Test
    void aNodeIsCleanWhenItAddedNoProblemOfItsOwnEvenAfterAnotherNodesProblems() {
        problems.add("items[0] (node gpu-01).metadata.name: is required");
        NodeValues next = new NodeValues("items[1] (node gpu-02)", problems);
        assertThat(next.clean()).isTrue();
        next.problem("status: odd");
        assertThat(next.clean()).isFalse();
        assertThat(problems).containsExactly("items[0] (node gpu-01).metadata.name: is required", "items[1] (node gpu-02).status: odd");
    }
}
