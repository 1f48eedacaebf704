package io.gpupool.policy;

import io.gpupool.policy.decision.TierAssignment;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.perf.SyntheticFleet;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class TieringRulesTest {
    @TestFactory
    Stream<DynamicTest> shippedTieringScenariosPass() {
        return DefaultPolicy.scenarios("tiering");
    }

    @Test
    void everyDeviceOfAMixedFleetGetsExactlyOneTier() {
        SnapshotFacts fleet = SyntheticFleet.facts(800, 0, 0.5);

        Evaluation e = DefaultPolicy.ENGINE.sweep(DefaultPolicy.POLICY, fleet, List.of());

        Map<String, Long> tiersPerDevice = e.decisionsOf(TierAssignment.class).stream()
                .collect(Collectors.groupingBy(TierAssignment::deviceId, Collectors.counting()));
        assertThat(tiersPerDevice).hasSize(800).allSatisfy((device, count) -> assertThat(count).isOne());
        assertThat(e.decisionsOf(TierAssignment.class).stream()
                .collect(Collectors.groupingBy(t -> t.tier().name(), Collectors.counting())))
                .containsOnlyKeys("CRITICAL_RESERVED", "TRAINING", "DEV_SHARED", "ELASTIC");
    }

    @Test
    void tierMatchesThePoolTheFleetDocumentChoseForTheSyntheticFleet() {
        SnapshotFacts fleet = SyntheticFleet.facts(800, 0, 0.5);
        Map<String, String> poolTierOfDevice = fleet.devices().stream()
                .collect(Collectors.toMap(d -> d.deviceId(), d -> d.poolTier()));

        Evaluation e = DefaultPolicy.ENGINE.sweep(DefaultPolicy.POLICY, fleet, List.of());

        assertThat(e.decisionsOf(TierAssignment.class))
                .allSatisfy(t -> assertThat(t.tier().name()).as(t.deviceId()).isEqualTo(poolTierOfDevice.get(t.deviceId())));
    }
}
