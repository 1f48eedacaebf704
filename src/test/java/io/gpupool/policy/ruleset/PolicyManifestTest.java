package io.gpupool.policy.ruleset;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * {@code policy.yaml} read on its own: what it overrides, and every way it can be malformed, each
 * refused with the key and what to write instead (a typo must not silently drop an override).
 */
class PolicyManifestTest {
    @Test
    void aFullManifestListsEachOverrideUnderItsSection() {
        PolicyManifest manifest = PolicyManifest.parse("""
                extends: default
                replace:
                  files: [reclamation/reclamation.drl]
                  rules: ["Any other GPU is elastic", "Dev goes to dev pools"]
                remove:
                  files: [tests/admission-kind-chooses-pools-in-order.yaml]
                  rules: ["Node labelled reserved is critical-reserved"]
                """);

        assertThat(manifest).isEqualTo(new PolicyManifest("default", Set.of("reclamation/reclamation.drl"),
                Set.of("Any other GPU is elastic", "Dev goes to dev pools"),
                Set.of("tests/admission-kind-chooses-pools-in-order.yaml"),
                Set.of("Node labelled reserved is critical-reserved")));
    }

    @Test
    void aManifestThatOnlyExtendsOverridesNothing() {
        PolicyManifest manifest = PolicyManifest.parse("extends: default\n");

        assertThat(manifest.base()).isEqualTo(PolicyManifest.DEFAULT_BASE);
        assertThat(manifest.replaceFiles()).isEmpty();
        assertThat(manifest.replaceRules()).isEmpty();
        assertThat(manifest.removeFiles()).isEmpty();
        assertThat(manifest.removeRules()).isEmpty();
    }

    @Test
    void aSectionWithOnlyOneListLeavesTheOtherEmpty() {
        PolicyManifest manifest = PolicyManifest.parse("extends: default\nremove:\n  rules: [\"Idle for an hour is reclaimed\"]\n");

        assertThat(manifest.removeRules()).containsExactly("Idle for an hour is reclaimed");
        assertThat(manifest.removeFiles()).isEmpty();
        assertThat(manifest.replaceRules()).isEmpty();
    }

    @Test
    void namesAreTakenWithoutSurroundingSpaces() {
        PolicyManifest manifest = PolicyManifest.parse("extends: default\nreplace:\n  rules: [\"  Dev goes to dev pools  \"]\n");

        assertThat(manifest.replaceRules()).containsExactly("Dev goes to dev pools");
    }

    @Test
    void theListsOfAManifestCannotBeChanged() {
        PolicyManifest manifest = PolicyManifest.parse("extends: default\nremove: {files: [a.drl]}\n");

        assertThatThrownBy(() -> manifest.removeFiles().add("b.drl")).isInstanceOf(UnsupportedOperationException.class);
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                arguments("a blank file", "  \n\n", List.of("policy.yaml: expected a mapping such as 'extends: default', "
                        + "got an empty file")),
                arguments("a comment only", "# nothing yet\n", List.of("policy.yaml: expected a mapping such as "
                        + "'extends: default', got an empty file")),
                arguments("a bare word", "default\n", List.of("policy.yaml: expected a mapping such as "
                        + "'extends: default', got 'default'")),
                arguments("a list", "- extends: default\n", List.of("policy.yaml: expected a mapping such as "
                        + "'extends: default', got a list")),
                arguments("a section that is a list", "extends: default\nreplace: [a.drl]\n",
                        List.of("policy.yaml: 'replace' must hold 'files' and/or 'rules' lists, got a list")),
                arguments("a section that is a word", "extends: default\nremove: everything\n",
                        List.of("policy.yaml: 'remove' must hold 'files' and/or 'rules' lists, got 'everything'")),
                arguments("a list that is a mapping", "extends: default\nreplace: {files: {a: b}}\n",
                        List.of("policy.yaml: 'replace.files' must be a list, got a mapping")),
                arguments("a list that is empty in YAML", "extends: default\nreplace: {rules: }\n",
                        List.of("policy.yaml: 'replace.rules' must be a list, got nothing")),
                arguments("a blank rule name", "extends: default\nremove: {rules: [\"  \"]}\n",
                        List.of("policy.yaml: 'remove.rules' holds '  '; list quoted rule names")),
                arguments("a number for a file", "extends: default\nreplace: {files: [42]}\n",
                        List.of("policy.yaml: 'replace.files' holds '42'; list paths such as tiering/device-tiers.drl")),
                arguments("a mapping for a rule name", "extends: default\nreplace: {rules: [{name: x}]}\n",
                        List.of("policy.yaml: 'replace.rules' holds a mapping; list quoted rule names")),
                arguments("a null entry", "extends: default\nremove: {files: [~]}\n",
                        List.of("policy.yaml: 'remove.files' holds nothing; list paths such as tiering/device-tiers.drl")),
                arguments("the same name twice once with spaces", "extends: default\nremove: {rules: [\"R\", \" R \"]}\n",
                        List.of("policy.yaml: 'remove.rules' lists ' R ' twice")),
                arguments("a base given as a number", "extends: 2\n", List.of("policy.yaml: 'extends: 2' names an "
                        + "unknown base; the only base is 'default' (the shipped default rule set)")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void aMalformedManifestIsRefusedWithExactlyWhatToFix(String caseName, String text, List<String> errors) {
        assertThatThrownBy(() -> PolicyManifest.parse(text)).isInstanceOfSatisfying(LayeringException.class, e -> {
            assertThat(e.errors()).isEqualTo(errors);
            assertThat(e.malformedManifest()).isTrue();
            assertThat(e.getMessage()).isEqualTo(errors.get(0));
        });
    }

    @Test
    void aNullManifestIsAnEmptyOne() {
        assertThatThrownBy(() -> PolicyManifest.parse(null)).isInstanceOfSatisfying(LayeringException.class,
                e -> assertThat(e.errors()).singleElement().asString().endsWith("got an empty file"));
    }

    @Test
    void invalidYamlIsReportedAtItsLine() {
        assertThatThrownBy(() -> PolicyManifest.parse("extends: default\nreplace:\n  files: [a.drl\n  rules: x: y\n"))
                .isInstanceOfSatisfying(LayeringException.class, e -> {
                    assertThat(e.errors()).singleElement().asString().matches("(?s)policy\\.yaml:4: not valid YAML: .+");
                    assertThat(e.malformedManifest()).isTrue();
                });
    }

    @Test
    void everyProblemOfAManifestIsReportedAtOnceInOneMessage() {
        assertThatThrownBy(() -> PolicyManifest.parse("""
                base: default
                replace: {file: [a.drl], rules: "x"}
                remove: {files: [b.drl, b.drl]}
                """)).isInstanceOfSatisfying(LayeringException.class, e -> {
            assertThat(e.errors()).containsExactlyInAnyOrder(
                    "policy.yaml: unknown key 'base'; the keys are extends, replace and remove",
                    "policy.yaml: 'extends' is required: name the base set ('extends: default')",
                    "policy.yaml: unknown key 'replace.file'; 'replace' holds 'files' and 'rules'",
                    "policy.yaml: 'replace.rules' must be a list, got 'x'",
                    "policy.yaml: 'remove.files' lists 'b.drl' twice");
            assertThat(e.getMessage()).startsWith("5 problems: ").contains("; ");
        });
    }

    @Test
    void aLayeringExceptionFromTheResolverIsNotAMalformedManifest() {
        LayeringException e = new LayeringException(List.of("replace.rules: the base set has no rule \"X\""));

        assertThat(e.malformedManifest()).isFalse();
        assertThat(e.getMessage()).isEqualTo("replace.rules: the base set has no rule \"X\"");
        assertThat(e).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void twoErrorsAreCountedAndJoinedInTheMessage() {
        LayeringException e = new LayeringException(List.of("first", "second"));

        assertThat(e.getMessage()).isEqualTo("2 problems: first; second");
        assertThat(e.errors()).containsExactly("first", "second");
    }
}
