package io.gpupool.fleet;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.decision.ProfileLabel;
import io.gpupool.policy.decision.TierAssignment;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.fact.DeviceFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.fact.UsageWindow;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.testing.ExampleFleet;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The default policy on the fleet gpupool ships (policies-examples/fleet/enterprise-fleet.yaml,
 * whose cards are named H100-SXM-80G, A100-SXM-80G, L40S-PCIE-48G, T4-PCIE-16G, …): the 8-way NVLink nodes
 * train, the reserved nodes are critical-reserved, the MIG A100s are dev-shared, inference cards are
 * inference-fit, and no card's name is one the catalog cannot resolve. The counts are the ones
 * docs/policy-authoring.md lists.
 */
class ShippedFleetTieringTest {
    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");

    @Test
    void theDefaultPolicyTiersTheShippedFleetByHardwareNotByTheNamesItsFileUses() {
        Evaluation e = DefaultPolicy.ENGINE.sweep(DefaultPolicy.POLICY, shippedFleet(), List.of());

        Map<String, Long> tiers = new TreeMap<>(e.decisionsOf(TierAssignment.class).stream()
                .collect(Collectors.groupingBy(t -> t.tier().name(), Collectors.counting())));
        assertThat(tiers).containsExactlyInAnyOrderEntriesOf(Map.of(
                "TRAINING", 128L,          // 10 H100 nodes and 6 A100 nodes, 8-way NVLink
                "CRITICAL_RESERVED", 16L,  // the 2 reserved H100 nodes
                "DEV_SHARED", 32L,         // the 4 A100 nodes in MIG mode
                "ELASTIC", 148L));         // 56 L40S, 80 T4, 12 A100 PCIe
        assertThat(e.tierOf("fra-h100-01-gpu0")).get().extracting(TierAssignment::ruleName)
                .isEqualTo("Eight-way NVLink H100 node serves training");
        assertThat(e.tierOf("fra-a100-05-gpu0")).get().extracting(TierAssignment::ruleName)
                .isEqualTo("Eight-way NVLink A100 node not partitioned with MIG serves training");
        assertThat(e.tierOf("fra-a100-01-gpu0")).get().extracting(TierAssignment::ruleName)
                .isEqualTo("MIG-capable A100 is dev-shared");
    }

    @Test
    void everyInferenceCardOfTheShippedFleetIsInferenceFitAndNoCardNameIsUnknown() {
        SnapshotFacts fleet = shippedFleet();

        Evaluation e = DefaultPolicy.ENGINE.sweep(DefaultPolicy.POLICY, fleet, List.of());

        Map<String, Long> labels = new TreeMap<>(e.decisionsOf(ProfileLabel.class).stream()
                .collect(Collectors.groupingBy(ProfileLabel::label, Collectors.counting())));
        long t4AndL40s = fleet.devices().stream().filter(d -> d.family().equals("T4") || d.family().equals("L40S")).count();
        assertThat(labels.get("inference-fit")).as("every T4 and L40S").isEqualTo(t4AndL40s).isEqualTo(136L);
        assertThat(labels.get("training-fit")).as("every 80 GiB NVLink card").isEqualTo(144L);
        assertThat(fleet.devices()).as("cards whose name the catalog cannot resolve")
                .filteredOn(d -> !d.modelKnown()).extracting(DeviceFact::model).isEmpty();
    }

    /** The shipped fleet file as the service holds it after importing it, as policy facts. */
    private static SnapshotFacts shippedFleet() {
        PoolSnapshot snapshot = ShippedFleet.snapshot(NOW);
        assertThat(snapshot.devices()).hasSize(ExampleFleet.DEVICES);
        return SnapshotFacts.of(snapshot, NOW, List.of(), UsageWindow.DEFAULT);
    }
}
