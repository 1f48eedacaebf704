package io.gpupool.policy;

import io.gpupool.policy.check.PolicyValidator;
import io.gpupool.policy.check.ValidationReport;
import io.gpupool.policy.ruleset.DrlRules;
import io.gpupool.policy.ruleset.LayeredRuleSet;
import io.gpupool.policy.ruleset.PolicyManifest;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.ruleset.RuleSetFiles;
import io.gpupool.policy.ruleset.RuleSetLayering;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every policy folder under policies-examples/ (one with a policy.yaml; fleet/ and workload/ hold the example inventory and demand instead) is a
 * layered policy: a policy.yaml over the default set plus only what it changes. Resolved the way
 * an upload is resolved, it compiles, lints clean and its tests pass; and it stays in step with
 * the default set: an override of something the default set no longer has, or a copy of
 * something it has unchanged, fails here naming the file or rule.
 */
class PolicyExamplesTest {
    private static final Path EXAMPLES = Path.of("policies-examples");
    private static final RuleSet DEFAULTS = RuleSetFiles.defaultRuleSet();

    static Stream<String> examples() throws IOException {
        try (Stream<Path> dirs = Files.list(EXAMPLES)) {
            return dirs.filter(d -> Files.isRegularFile(d.resolve("policy.yaml")))
                    .map(p -> p.getFileName().toString()).sorted().toList().stream();
        }
    }

    private static Map<String, String> folder(String name) {
        return RuleSetFiles.fromDirectory(EXAMPLES.resolve(name), name).files();
    }

    private static LayeredRuleSet resolved(String name) {
        return RuleSetLayering.resolve(folder(name));
    }

    @ParameterizedTest(name = "{0} is a valid policy with passing tests")
    @MethodSource("examples")
    void examplePolicyIsValidAndItsTestsPass(String name) {
        RuleSet set = resolved(name).ruleSet().withVersion(name);

        ValidationReport report = new PolicyValidator(DefaultPolicy.ENGINE).validate(set);

        assertThat(EXAMPLES.resolve(name).resolve("README.md")).exists();
        assertThat(set.ruleFiles().keySet()).extracting(p -> p.substring(0, p.indexOf('/')))
                .containsAll(List.of("tiering", "admission", "priority", "quota", "preemption", "reclamation"));
        assertThat(set.testFiles()).isNotEmpty();
        assertThat(report.errors()).as(name).isEmpty();
        assertThat(report.tests().orElseThrow().allPassed()).isTrue();
    }

    @ParameterizedTest(name = "every rule of {0} fires in one of its tests")
    @MethodSource("examples")
    void everyRuleOfTheExampleIsCoveredByItsTests(String name) {
        ValidationReport report = new PolicyValidator(DefaultPolicy.ENGINE).validate(resolved(name).ruleSet());

        assertThat(report.tests().orElseThrow().coverage().neverFired()).as(name).isEmpty();
    }

    @ParameterizedTest(name = "{0} states what it changes in a policy.yaml over the default set")
    @MethodSource("examples")
    void exampleIsLayeredOverTheDefaultSet(String name) {
        assertThat(folder(name)).as(name).containsKey(PolicyManifest.FILE);
        assertThat(resolved(name).base()).isEqualTo(PolicyManifest.DEFAULT_BASE);
    }

    @ParameterizedTest(name = "{0} overrides only files and rules the default set still has")
    @MethodSource("examples")
    void exampleOverridesOnlyWhatTheDefaultSetStillHas(String name) {
        // Resolution refuses an override of a file or rule the default set lacks, naming it; this
        // states the failure as a drift so the message says which side to fix.
        try {
            RuleSetLayering.resolve(folder(name));
        } catch (io.gpupool.policy.ruleset.LayeringException e) {
            throw new AssertionError(name + " has drifted from the default set (src/main/resources/rules): "
                    + "fix policies-examples/" + name + "/" + PolicyManifest.FILE + " or the file it names:\n  "
                    + String.join("\n  ", e.errors()), e);
        }
    }

    @ParameterizedTest(name = "{0} copies no file or rule of the default set unchanged")
    @MethodSource("examples")
    void exampleCopiesNothingTheDefaultSetAlreadyHas(String name) {
        List<String> copies = new ArrayList<>(resolved(name).warnings());
        folder(name).forEach((path, text) -> DEFAULTS.files().forEach((basePath, baseText) -> {
            if (RuleSet.isRuleFile(path) == RuleSet.isRuleFile(basePath)
                    && sameContent(path, text, baseText)) {
                copies.add(path + " is a copy of the default set's " + basePath + ": delete it and inherit the file");
            }
        }));

        assertThat(copies).as("pointless copies in policies-examples/" + name).isEmpty();
    }

    @Test
    void thereAreTheThreeDocumentedExamples() throws IOException {
        assertThat(examples()).containsExactly("inference-first", "research-lab-fair-share", "tiered-enterprise");
    }

    private static boolean sameContent(String path, String text, String baseText) {
        if (RuleSet.isRuleFile(path)) {
            return DrlRules.parse(path, text).bodyNormalised().equals(DrlRules.parse(path, baseText).bodyNormalised());
        }
        return text.strip().equals(baseText.strip());
    }
}
