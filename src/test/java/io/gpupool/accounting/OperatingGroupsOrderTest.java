package io.gpupool.accounting;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order the operating reports collect their groups in ({@link OperatingGroups#ORDER}): the
 * reports' groups are the keys of a map sorted by it, so two keys it calls equal become one group.
 */
class OperatingGroupsOrderTest {
    @Test
    void aGroupWithoutAValueComesAfterTheGroupsWithOne() {
        List<List<String>> keys = new ArrayList<>(List.of(Arrays.asList((String) null, "prod"),
                Arrays.asList("vision", "batch"), Arrays.asList("acme", "prod")));
        keys.sort(OperatingGroups.ORDER);
        assertThat(keys).containsExactly(List.of("acme", "prod"), List.of("vision", "batch"), Arrays.asList(null, "prod"));
    }

    @Test
    void aValueSpelledNullIsNotTheGroupWithoutAValue() {
        TreeMap<List<String>, Integer> groups = new TreeMap<>(OperatingGroups.ORDER);
        groups.merge(Arrays.asList((String) null), 1, Integer::sum);
        groups.merge(List.of("null"), 1, Integer::sum);
        assertThat(groups).hasSize(2);
    }

    @Test
    void valuesWithCommasDoNotRunIntoTheNextDimension() {
        TreeMap<List<String>, Integer> groups = new TreeMap<>(OperatingGroups.ORDER);
        groups.merge(List.of("a, b", "c"), 1, Integer::sum);
        groups.merge(List.of("a", "b, c"), 1, Integer::sum);
        assertThat(groups).hasSize(2);
    }

    @Test
    void keysCompareValueByValueThenByLength() {
        assertThat(OperatingGroups.ORDER.compare(List.of("a"), List.of("a", "b"))).isNegative();
        assertThat(OperatingGroups.ORDER.compare(List.of("b"), List.of("a", "z"))).isPositive();
        assertThat(OperatingGroups.ORDER.compare(List.of("a", "b"), List.of("a", "b"))).isZero();
    }
}
