package io.gpupool.policy.ruleset;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What counts as a rule file, a policy test and a manifest; how a rule set reads from a folder;
 * what its hash covers; and how rules are cut from the text for per-rule summaries.
 */
class RuleSetFilesTest {
    @TempDir
    Path folder;

    private void write(String relative, String text) throws IOException {
        Path file = folder.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    @Test
    void rulesAreDrlFilesAndTestsAreYamlUnderATestsFolder() {
        assertThat(RuleSet.isRuleFile("quota/quota-verdicts.drl")).isTrue();
        assertThat(RuleSet.isRuleFile("quota/quota-verdicts.drl.bak")).isFalse();
        assertThat(RuleSet.isTestFile("tests/quota-over-limit.yaml")).isTrue();
        assertThat(RuleSet.isTestFile("tests/quota-over-limit.yml")).isTrue();
        assertThat(RuleSet.isTestFile("quota/tests/over-limit.yaml")).isTrue();
        assertThat(RuleSet.isTestFile("tests/README.md")).isFalse();
        assertThat(RuleSet.isTestFile("policy.yaml")).isFalse();
        assertThat(RuleSet.isTestFile("contests/x.yaml")).isFalse();
        assertThat(RuleSet.isTestFile("fleet/enterprise-fleet.yaml")).isFalse();
    }

    @Test
    void aRuleSetSplitsItsFilesIntoRulesAndTestsAndKeepsOthersOutOfBoth() {
        RuleSet set = RuleSet.draft(Map.of("tiering/tiers.drl", "package t;", "tests/tiering-h100.yaml", "name: x",
                "policy.yaml", "extends: default", "notes.txt", "hello"));

        assertThat(set.ruleFiles()).containsOnlyKeys("tiering/tiers.drl");
        assertThat(set.testFiles()).containsOnlyKeys("tests/tiering-h100.yaml");
        assertThat(set.files()).hasSize(4);
        assertThat(set.version()).isEqualTo("draft");
    }

    @Test
    void filesAreSortedByPathWhateverTheUploadOrderAndCannotBeChanged() {
        Map<String, String> upload = new LinkedHashMap<>();
        upload.put("tiering/z.drl", "z");
        upload.put("admission/a.drl", "a");
        upload.put("preemption/m.drl", "m");
        RuleSet set = new RuleSet("v2", upload);
        upload.put("late.drl", "late");

        assertThat(set.files().keySet()).containsExactly("admission/a.drl", "preemption/m.drl", "tiering/z.drl");
        assertThat(set.ruleFiles().keySet()).containsExactly("admission/a.drl", "preemption/m.drl", "tiering/z.drl");
        assertThatThrownBy(() -> set.files().put("x.drl", "")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> set.ruleFiles().put("x.drl", "")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aNewVersionLabelKeepsTheFiles() {
        RuleSet draft = RuleSet.draft(Map.of("a.drl", "x"));

        RuleSet v9 = draft.withVersion("v9");

        assertThat(v9.version()).isEqualTo("v9");
        assertThat(v9.files()).isEqualTo(draft.files());
    }

    @Test
    void aFolderIsReadWithRelativePathsKeepingRulesTestsAndTheManifestOnly() throws IOException {
        write("tiering/tiers.drl", "package io.gpupool.rules.tiering;\n");
        write("tests/tiering-h100.yaml", "name: h100\n");
        write("policy.yaml", "extends: default\n");
        write("README.md", "# not a rule\n");
        write("tiering/notes.txt", "not a rule either\n");
        write("fleet/fleet.yaml", "not a test: outside tests/\n");

        RuleSet set = RuleSetFiles.fromDirectory(folder, "research-lab");

        assertThat(set.version()).isEqualTo("research-lab");
        assertThat(set.files()).containsOnlyKeys("tiering/tiers.drl", "tests/tiering-h100.yaml", "policy.yaml");
        assertThat(set.files().get("tiering/tiers.drl")).isEqualTo("package io.gpupool.rules.tiering;\n");
    }

    @Test
    void aFolderNamedLikeARuleFileIsWalkedIntoNotReadAsOne() throws IOException {
        write("archive.drl/tiers.drl", "package io.gpupool.rules.archive;\n");

        assertThat(RuleSetFiles.fromDirectory(folder, "v1").files()).containsOnlyKeys("archive.drl/tiers.drl");
    }

    @Test
    void aManifestInASubfolderIsNotTheSetsManifest() throws IOException {
        write("quota/policy.yaml", "extends: default\n");

        assertThat(RuleSetFiles.fromDirectory(folder, "v1").files()).isEmpty();
    }

    @Test
    void aMissingFolderIsAnIoError() {
        assertThatThrownBy(() -> RuleSetFiles.fromDirectory(folder.resolve("absent"), "v1"))
                .isInstanceOf(java.io.UncheckedIOException.class);
    }

    @Test
    void aLocationTheClasspathDoesNotHaveIsRefusedNamingIt() {
        assertThatThrownBy(() -> RuleSetFiles.fromClasspath("no-such-rules", "v1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("No rule set on the classpath at no-such-rules");
    }

    @Test
    void theDefaultSetIsLabelledDefaultAndHoldsTheShippedFilesOnly() {
        RuleSet set = RuleSetFiles.defaultRuleSet();

        assertThat(set.version()).isEqualTo("default");
        assertThat(set.files()).containsKey("reclamation/reclamation.drl")
                .containsKey("tests/admission-kind-chooses-pools-in-order.yaml")
                .doesNotContainKey(PolicyManifest.FILE);
    }

    @Test
    void theHashIsHexSha256OfPathsAndTextsWithTheirLengths() {
        // Fixed value: stored rule-set versions are looked up by this hash, so it must not drift between builds.
        assertThat(RuleSetHash.sha256(RuleSet.draft(Map.of())))
                .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assertThat(RuleSetHash.sha256(RuleSet.draft(Map.of("a.drl", "x"))))
                .isEqualTo(sha256("5:a.drl:1:x"));
    }

    @Test
    void theHashTellsAPathFromTheTextFollowingIt() {
        String one = RuleSetHash.sha256(RuleSet.draft(Map.of("a.drl", "1:x")));
        String other = RuleSetHash.sha256(RuleSet.draft(Map.of("a.drl:1", "x")));

        assertThat(one).isNotEqualTo(other);
    }

    @Test
    void theHashSeesARenamedFileAndAnyChangeOfText() {
        String base = RuleSetHash.sha256(RuleSet.draft(Map.of("a.drl", "rule")));

        assertThat(RuleSetHash.sha256(RuleSet.draft(Map.of("b.drl", "rule")))).isNotEqualTo(base);
        assertThat(RuleSetHash.sha256(RuleSet.draft(Map.of("a.drl", "rule ")))).isNotEqualTo(base);
        assertThat(RuleSetHash.sha256(RuleSet.draft(new HashMap<>(Map.of("a.drl", "rule"))))).isEqualTo(base);
    }

    @Test
    void ruleSourcesAreCutByNameWhateverTheQuotingAndTheFirstFileWins() {
        RuleSet set = RuleSet.draft(Map.of(
                "a/first.drl", """
                        package a;
                        rule "Quoted name"
                        when
                        then
                        end
                          rule 'Single quoted'
                        when
                        then
                          end
                        rule Bare
                        when
                        then
                        end
                        """,
                "b/second.drl", "package b;\nrule \"Quoted name\"\nwhen\n    Object( )\nthen\nend\n",
                "tests/x.yaml", "rule \"Not a rule\"\nend\n"));

        Map<String, RuleSource> rules = RuleSource.of(set);

        assertThat(rules.keySet()).containsExactly("Quoted name", "Single quoted", "Bare");
        assertThat(rules.get("Quoted name")).isEqualTo(new RuleSource("Quoted name", "a/first.drl",
                "rule \"Quoted name\"\nwhen\nthen\nend"));
        assertThat(rules.get("Single quoted").text()).isEqualTo("  rule 'Single quoted'\nwhen\nthen\n  end");
        assertThat(rules.get("Bare").file()).isEqualTo("a/first.drl");
    }

    @Test
    void aRuleSourcesNormalisedTextDropsTrailingSpacesAndBlankLines() {
        RuleSource source = new RuleSource("R", "a.drl", "rule \"R\"  \n\nwhen\n   \nthen\nend");

        assertThat(source.normalised()).isEqualTo("rule \"R\"\nwhen\nthen\nend\n");
    }

    private static String sha256(String text) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
