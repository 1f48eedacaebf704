package io.gpupool.policy.ruleset;

import io.gpupool.policy.ruleset.LayeredRuleSet.Origin;
import io.gpupool.policy.ruleset.LayeredRuleSet.OverriddenRule;
import io.gpupool.policy.ruleset.LayeredRuleSet.Override;
import io.gpupool.policy.ruleset.LayeredRuleSet.ResolvedFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class RuleSetLayeringTest {
    private static final String TIERS = "tiering/tiers.drl";
    private static final String LABELS = "tiering/labels.drl";
    private static final String TEST = "tests/tiering-works.yaml";

    private static final String TIERS_TEXT = """
            package io.gpupool.rules.tiering;

            import io.gpupool.policy.fact.DeviceFact;
            global io.gpupool.policy.decision.Decisions decisions;

            // Each card gets one tier.

            rule "Reserved node is critical"
            when
                $d : DeviceFact( reserved )
            then
                decisions.tier($d, "CRITICAL_RESERVED", "NODE_RESERVED", "reserved");
            end

            // The comment of the H100 rule: a rule "like this" or an end
            // inside a comment must not fool the cut.
            rule "H100 serves training"
            when
                $d : DeviceFact( !reserved, model == "H100" )
            then
                decisions.tier($d, "TRAINING", "H100", "an H100, the end");
            end

            rule "Any other card is elastic"
            when
                $d : DeviceFact( !reserved, model != "H100" )
            then
                decisions.tier($d, "ELASTIC", "OTHER", "other");
            end
            """;

    private static final String LABELS_TEXT = """
            package io.gpupool.rules.tiering;

            import io.gpupool.policy.fact.DeviceFact;
            global io.gpupool.policy.decision.Decisions decisions;

            rule "NVLink card is labelled nvlink"
            when
                $d : DeviceFact( nvlink )
            then
                decisions.label($d, "nvlink", "NVLINK", "nvlink");
            end
            """;

    private static final RuleSet BASE = RuleSet.draft(Map.of(TIERS, TIERS_TEXT, LABELS, LABELS_TEXT, TEST, "name: t\n"));

    private static Map<String, String> upload(String manifest, String... pathsAndTexts) {
        Map<String, String> files = new HashMap<>();
        files.put(PolicyManifest.FILE, manifest);
        for (int i = 0; i < pathsAndTexts.length; i += 2) {
            files.put(pathsAndTexts[i], pathsAndTexts[i + 1]);
        }
        return files;
    }

    private static String ruleFile(String pkg, String... rules) {
        StringBuilder text = new StringBuilder("package " + pkg + ";\n\nimport io.gpupool.policy.fact.DeviceFact;\n"
                + "global io.gpupool.policy.decision.Decisions decisions;\n");
        for (String name : rules) {
            text.append("\nrule \"").append(name).append("\"\nwhen\n    $d : DeviceFact( model == \"L40S\" )\nthen\n")
                    .append("    decisions.tier($d, \"ELASTIC\", \"L40S\", \"l40s\");\nend\n");
        }
        return text.toString();
    }

    private static Origin origin(LayeredRuleSet layered, String path) {
        return layered.files().stream().filter(f -> f.path().equals(path)).map(ResolvedFile::origin).findFirst()
                .orElseThrow();
    }

    @Test
    void anUploadWithoutAManifestIsTakenAsTheCompleteSetItIs() {
        LayeredRuleSet layered = RuleSetLayering.resolve(Map.of(LABELS, LABELS_TEXT));

        assertThat(layered.layered()).isFalse();
        assertThat(layered.ruleSet().files()).containsOnlyKeys(LABELS);
    }

    @Test
    void aManifestAloneInheritsEveryBaseFileVerbatimAndIsNotPartOfTheResult() {
        LayeredRuleSet layered = RuleSetLayering.resolve(BASE, upload("extends: default\n"));

        assertThat(layered.ruleSet().files()).isEqualTo(BASE.files());
        assertThat(layered.files()).extracting(ResolvedFile::origin).containsOnly(Origin.INHERITED);
        assertThat(layered.rules()).isEmpty();
    }

    @Test
    void aFileListedUnderReplaceFilesReplacesTheBaseFileAtThatPath() {
        String mine = ruleFile("io.gpupool.examples.tiering", "NVLink card is labelled nvlink");

        LayeredRuleSet layered = RuleSetLayering.resolve(BASE,
                upload("extends: default\nreplace: {files: [" + LABELS + "]}\n", LABELS, mine));

        assertThat(layered.ruleSet().files().get(LABELS)).isEqualTo(mine);
        assertThat(origin(layered, LABELS)).isEqualTo(Origin.REPLACED);
        assertThat(origin(layered, TIERS)).isEqualTo(Origin.INHERITED);
        assertThat(layered.warnings()).isEmpty();
    }

    @Test
    void aRuleReplacedByNameLeavesTheRestOfItsBaseFileVerbatimWithoutThatRuleAndItsComment() {
        String mine = ruleFile("io.gpupool.examples.tiering", "H100 serves training");

        LayeredRuleSet layered = RuleSetLayering.resolve(BASE,
                upload("extends: default\nreplace: {rules: [\"H100 serves training\"]}\n", "tiering/mine.drl", mine));

        String trimmed = layered.ruleSet().files().get(TIERS);
        assertThat(trimmed).doesNotContain("H100 serves training", "The comment of the H100 rule", "an H100, the end")
                .contains("// Each card gets one tier.", "rule \"Reserved node is critical\"", "rule \"Any other card is elastic\"");
        assertThat(trimmed).isEqualTo(TIERS_TEXT.substring(0, TIERS_TEXT.indexOf("// The comment"))
                + TIERS_TEXT.substring(TIERS_TEXT.indexOf("rule \"Any other card")));
        assertThat(layered.ruleSet().files().get("tiering/mine.drl")).isEqualTo(mine);
        assertThat(origin(layered, TIERS)).isEqualTo(Origin.INHERITED_WITHOUT_RULES);
        assertThat(origin(layered, "tiering/mine.drl")).isEqualTo(Origin.ADDED);
        assertThat(layered.rules()).containsExactly(
                new OverriddenRule("H100 serves training", TIERS, Override.REPLACED, "tiering/mine.drl"));
    }

    @Test
    void aRemovedRuleIsCutFromItsBaseFileAndABaseFileLeftWithoutRulesIsDropped() {
        LayeredRuleSet layered = RuleSetLayering.resolve(BASE, upload("""
                extends: default
                remove:
                  rules: ["NVLink card is labelled nvlink", "Reserved node is critical"]
                """));

        assertThat(layered.ruleSet().files()).doesNotContainKey(LABELS);
        assertThat(layered.files()).contains(new ResolvedFile(LABELS, Origin.REMOVED, List.of("NVLink card is labelled nvlink")));
        assertThat(layered.ruleSet().files().get(TIERS)).doesNotContain("Reserved node is critical")
                .contains("H100 serves training");
        assertThat(layered.rules()).extracting(OverriddenRule::override).containsOnly(Override.REMOVED);
    }

    @Test
    void aRemovedFileIsLeftOutAndTheUploadsOwnFilesAreAdded() {
        LayeredRuleSet layered = RuleSetLayering.resolve(BASE, upload("extends: default\nremove: {files: [" + TEST + "]}\n",
                "tests/mine.yaml", "name: mine\n"));

        assertThat(layered.ruleSet().files()).doesNotContainKey(TEST).containsKey("tests/mine.yaml");
        assertThat(origin(layered, TEST)).isEqualTo(Origin.REMOVED);
        assertThat(origin(layered, "tests/mine.yaml")).isEqualTo(Origin.ADDED);
    }

    @Test
    void aReplacementThatOnlyChangesThePackageIsReportedAsACopy() {
        String copy = LABELS_TEXT.replace("io.gpupool.rules.tiering", "io.gpupool.examples.tiering");

        LayeredRuleSet layered = RuleSetLayering.resolve(BASE,
                upload("extends: default\nreplace: {files: [" + LABELS + "]}\n", LABELS, copy));

        assertThat(layered.warnings()).singleElement().asString().contains(LABELS, "delete the copy");
    }

    @Test
    void aRuleReplacedByAnIdenticalRuleIsReportedAsACopy() {
        String copy = "package io.gpupool.examples.tiering;\nimport io.gpupool.policy.fact.DeviceFact;\n"
                + "global io.gpupool.policy.decision.Decisions decisions;\n\n"
                + LABELS_TEXT.substring(LABELS_TEXT.indexOf("rule \""));

        LayeredRuleSet layered = RuleSetLayering.resolve(BASE, upload(
                "extends: default\nreplace: {rules: [\"NVLink card is labelled nvlink\"]}\n", "tiering/copy.drl", copy));

        assertThat(layered.warnings()).singleElement().asString()
                .contains("\"NVLink card is labelled nvlink\"", "tiering/copy.drl", "delete the copy");
    }

    static Stream<Arguments> overridesTheBaseCannotHonour() {
        String h100 = ruleFile("io.gpupool.examples.tiering", "H100 serves training");
        return Stream.of(
                arguments("a replaced rule the base does not have (renamed there)",
                        upload("extends: default\nreplace: {rules: [\"H100 trains\"]}\n"),
                        "replace.rules: the base set has no rule \"H100 trains\""),
                arguments("a removed rule the base does not have",
                        upload("extends: default\nremove: {rules: [\"Gone rule\"]}\n"),
                        "remove.rules: the base set has no rule \"Gone rule\""),
                arguments("a replaced file the base does not have (moved there)",
                        upload("extends: default\nreplace: {files: [tiering/old.drl]}\n", "tiering/old.drl", h100),
                        "replace.files: 'tiering/old.drl' is not a file of the base set"),
                arguments("a removed file the base does not have",
                        upload("extends: default\nremove: {files: [tests/gone.yaml]}\n"),
                        "remove.files: 'tests/gone.yaml' is not a file of the base set"),
                arguments("a replaced file the upload does not carry",
                        upload("extends: default\nreplace: {files: [" + LABELS + "]}\n"),
                        "replace.files: '" + LABELS + "' is listed but the upload has no file at that path"),
                arguments("a replaced rule the upload does not define",
                        upload("extends: default\nreplace: {rules: [\"H100 serves training\"]}\n"),
                        "no rule file of the upload defines a rule of that name"),
                arguments("an undeclared file at a base path",
                        upload("extends: default\n", LABELS, LABELS_TEXT),
                        "'" + LABELS + "' is also a file of the base set: list it under replace.files"),
                arguments("an undeclared rule with a base rule's name",
                        upload("extends: default\n", "tiering/mine.drl", h100),
                        "Rule \"H100 serves training\" in tiering/mine.drl has the name of a rule of the base set (in "
                                + TIERS + "): list it under replace.rules"),
                arguments("a rule both replaced and removed",
                        upload("extends: default\nreplace: {rules: [\"H100 serves training\"]}\n"
                                + "remove: {rules: [\"H100 serves training\"]}\n", "tiering/mine.drl", h100),
                        "is under both replace.rules and remove.rules"),
                arguments("a rule override inside a file replaced as a whole",
                        upload("extends: default\nreplace: {files: [" + TIERS + "], rules: [\"H100 serves training\"]}\n",
                                TIERS, h100),
                        "lives in " + TIERS + ", which is replaced or removed as a whole"),
                arguments("a removed file the upload carries too",
                        upload("extends: default\nremove: {files: [" + LABELS + "]}\n", LABELS, LABELS_TEXT),
                        "remove.files: '" + LABELS + "' is also in the upload"),
                arguments("a rule file of the upload that does not parse",
                        upload("extends: default\n", "tiering/broken.drl", "package x;\nrule \"Broken\"\nwhen\n  (((\nthen\nend\n"),
                        "tiering/broken.drl:"));
    }

    @ParameterizedTest(name = "{0} is refused, naming it")
    @MethodSource("overridesTheBaseCannotHonour")
    void anOverrideTheBaseCannotHonourIsRefusedNamingIt(String caseName, Map<String, String> upload, String message) {
        assertThatThrownBy(() -> RuleSetLayering.resolve(BASE, upload))
                .isInstanceOfSatisfying(LayeringException.class, e -> {
                    assertThat(e.errors()).anySatisfy(error -> assertThat(error).contains(message));
                    assertThat(e.malformedManifest()).isFalse();
                });
    }

    static Stream<Arguments> malformedManifests() {
        return Stream.of(
                arguments("text that is not YAML", "extends: [default\n", "not valid YAML"),
                arguments("a list instead of a mapping", "- extends\n", "expected a mapping"),
                arguments("an empty file", "", "an empty file"),
                arguments("no base", "replace: {files: []}\n", "'extends' is required"),
                arguments("an unknown base", "extends: v7\n", "'extends: v7' names an unknown base"),
                arguments("a misspelt top-level key", "extends: default\nreplaces: {files: []}\n", "unknown key 'replaces'"),
                arguments("a misspelt section key", "extends: default\nremove: {rule: [x]}\n", "unknown key 'remove.rule'"),
                arguments("a name instead of a list", "extends: default\nremove: {rules: \"x\"}\n", "'remove.rules' must be a list"),
                arguments("the same entry twice", "extends: default\nremove: {files: [a.drl, a.drl]}\n", "lists 'a.drl' twice"));
    }

    @ParameterizedTest(name = "a manifest with {0} is malformed")
    @MethodSource("malformedManifests")
    void aMalformedManifestIsRefusedSayingWhatToFix(String caseName, String manifest, String message) {
        assertThatThrownBy(() -> RuleSetLayering.resolve(BASE, upload(manifest)))
                .isInstanceOfSatisfying(LayeringException.class, e -> {
                    assertThat(e.errors()).anySatisfy(error -> assertThat(error).startsWith("policy.yaml").contains(message));
                    assertThat(e.malformedManifest()).isTrue();
                });
    }

    @Test
    void anExampleWhoseOverriddenRuleWasRenamedInTheDefaultSetNoLongerResolves() {
        RuleSet defaults = RuleSetFiles.defaultRuleSet();
        Map<String, String> renamed = new HashMap<>(defaults.files());
        renamed.put("tiering/device-tiers.drl", renamed.get("tiering/device-tiers.drl")
                .replace("rule \"Any other GPU is elastic\"", "rule \"Every other GPU is elastic\""));
        Map<String, String> example = RuleSetFiles.fromDirectory(
                java.nio.file.Path.of("policies-examples/research-lab-fair-share"), "example").files();

        assertThat(RuleSetLayering.resolve(defaults, example).rules()).hasSize(5);
        assertThatThrownBy(() -> RuleSetLayering.resolve(RuleSet.draft(renamed), example))
                .isInstanceOf(LayeringException.class)
                .hasMessageContaining("replace.rules: the base set has no rule \"Any other GPU is elastic\"");
    }
}
