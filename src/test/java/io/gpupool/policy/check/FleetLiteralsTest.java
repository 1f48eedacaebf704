package io.gpupool.policy.check;

import io.gpupool.fleet.ShippedFleet;
import io.gpupool.domain.inventory.Device;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.ruleset.RuleSetFiles;
import io.gpupool.policy.ruleset.RuleSetLayering;
import io.gpupool.snapshot.PoolSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** Literals in rule conditions, read by Drools' parser and checked against the shipped fleet. */
class FleetLiteralsTest {
    private static final PoolSnapshot FLEET = ShippedFleet.snapshot(Instant.parse("2026-12-01T12:00:00Z"));
    private static final String TIERS = "tiering/device-tiers.drl";

    private static RuleSet defaultsWith(String path, String from, String to) {
        Map<String, String> files = new TreeMap<>(RuleSetFiles.defaultRuleSet().files());
        assertThat(files.get(path)).contains(from);
        files.put(path, files.get(path).replace(from, to));
        return RuleSet.draft(files);
    }

    @Test
    void aFamilyNoDeviceOfTheFleetHasIsAWarningNamingTheRuleTheLineAndTheLiteral() {
        RuleSet set = defaultsWith(TIERS, "family == \"H100\", nvlink", "family == \"H200\", nvlink");

        List<PolicyMessage> warnings = FleetLiterals.check(set, FLEET);

        assertThat(warnings).singleElement().satisfies(w -> {
            assertThat(w.severity()).isEqualTo(PolicyMessage.Severity.WARNING);
            assertThat(w.stage()).isEqualTo(PolicyMessage.Stage.FLEET);
            assertThat(w.file()).isEqualTo(TIERS);
            assertThat(w.line()).isEqualTo(22);
            assertThat(w.text()).isEqualTo("rule 'Eight-way NVLink H100 node serves training' compares family with"
                    + " \"H200\", which no device of the fleet has (families: A100, H100, L40S, T4)");
        });
    }

    @Test
    void theDefaultSetAndEveryExampleNameOnlyWhatTheShippedFleetHas() {
        assertThat(FleetLiterals.check(RuleSetFiles.defaultRuleSet(), FLEET)).isEmpty();
        for (String example : List.of("tiered-enterprise", "inference-first", "research-lab-fair-share")) {
            RuleSet resolved = RuleSetLayering.resolve(RuleSetFiles.fromDirectory(
                    Path.of("policies-examples", example), example).files()).ruleSet();
            assertThat(FleetLiterals.check(resolved, FLEET)).as(example).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "pool ids in a list none of which the fleet has : PoolFact( poolId in (\"gpu-farm\", \"gpu-barn\") )",
            "a tier compared with != : PoolFact( tier != \"TRAINNG\" )",
            "a tenant on the left : TenantFact( \"acme\" == tenantId )",
            "a card model name : DeviceFact( model == \"H100\" )",
            "a node label : DeviceFact( hasLabel(\"zone\", \"moon\") )"})
    void aLiteralNamingNothingOfTheFleetIsFoundWhereverTheConditionPutsIt(String condition) {
        String pattern = condition.substring(condition.indexOf(": ") + 2);
        String drl = """
                package io.gpupool.rules.extra;
                import io.gpupool.policy.fact.*;
                global io.gpupool.policy.decision.Decisions decisions;

                rule "A rule about something the fleet lacks"
                when
                    %s
                then
                end
                """.formatted(pattern);
        Map<String, String> files = new TreeMap<>(RuleSetFiles.defaultRuleSet().files());
        files.put("extra/extra.drl", drl);

        List<PolicyMessage> warnings = FleetLiterals.check(RuleSet.draft(files), FLEET);

        assertThat(warnings).singleElement().satisfies(w -> {
            assertThat(w.file()).isEqualTo("extra/extra.drl");
            assertThat(w.line()).isEqualTo(7);
            assertThat(w.text()).startsWith("rule 'A rule about something the fleet lacks' compares");
        });
    }

    @Test
    void anAlternativeTheFleetLacksNextToOneItHasIsNoDeadCondition() {
        // the default set's "Inference cards (T4, L4, L40S) are inference-fit": the shipped fleet has no L4
        assertThat(RuleSetFiles.defaultRuleSet().files().get("tiering/profile-labels.drl"))
                .contains("family in (\"T4\", \"L4\", \"L40S\")");
        RuleSet set = defaultsWith("tiering/profile-labels.drl", "family in (\"T4\", \"L4\", \"L40S\")",
                "family in (\"L4\", \"B200\")");

        assertThat(FleetLiterals.check(RuleSetFiles.defaultRuleSet(), FLEET)).isEmpty();
        assertThat(FleetLiterals.check(set, FLEET)).singleElement().extracting(PolicyMessage::text).asString()
                .contains("compares family with \"L4\", \"B200\", which no device of the fleet has");
    }

    @Test
    void aLiteralInACommentOrAConsequenceIsNoCondition() {
        String drl = """
                package io.gpupool.rules.extra;
                import io.gpupool.policy.fact.*;
                global io.gpupool.policy.decision.Decisions decisions;

                // PoolFact( poolId == "gpu-farm" )
                rule "Training pools are named"
                when
                    $p : PoolFact( tier == "TRAINING" )
                then
                    String s = "gpu-farm";
                end
                """;
        Map<String, String> files = new TreeMap<>(RuleSetFiles.defaultRuleSet().files());
        files.put("extra/extra.drl", drl);

        assertThat(FleetLiterals.check(RuleSet.draft(files), FLEET)).isEmpty();
    }

    @Test
    void thePriorityClassesAPolicyKnowsAreTheLiteralsItComparesThePriorityClassWith() {
        assertThat(FleetLiterals.comparedWith(RuleSetFiles.defaultRuleSet(), "RequestFact", "priorityClass"))
                .containsExactlyInAnyOrder("critical", "high", "normal", "best-effort");
    }

    @Test
    void anEmptyFleetSaysNothingAboutLiterals() {
        RuleSet set = defaultsWith(TIERS, "family == \"H100\", nvlink", "family == \"H200\", nvlink");

        assertThat(FleetLiterals.check(set, PoolSnapshot.empty())).isEmpty();
    }

    @Test
    void cardsWhoseModelTheCatalogCannotResolveAreCountedAndNamed() {
        Device any = FLEET.devices().values().iterator().next();
        PoolSnapshot fleet = FLEET.toBuilder()
                .device(new Device("x-gpu0", null, any.nodeId(), any.clusterId(), any.siteId(), 90, "Graphics Device",
                        any.memoryMib(), null, 0, false, any.shareMode(), List.of(), any.health(), Map.of(), any.poolId(),
                        any.lastHeartbeat()))
                .device(new Device("x-gpu1", null, any.nodeId(), any.clusterId(), any.siteId(), 91, "Graphics Device",
                        any.memoryMib(), null, 0, false, any.shareMode(), List.of(), any.health(), Map.of(), any.poolId(),
                        any.lastHeartbeat()))
                .build();

        assertThat(FleetLiterals.check(RuleSetFiles.defaultRuleSet(), fleet)).singleElement().satisfies(w -> {
            assertThat(w.severity()).isEqualTo(PolicyMessage.Severity.WARNING);
            assertThat(w.text()).startsWith("2 device(s) of the fleet have a model name the card-model catalog cannot resolve")
                    .contains("\"Graphics Device\" (2)");
        });
    }
}
