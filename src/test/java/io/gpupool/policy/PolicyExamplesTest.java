package io.gpupool.policy;

import io.gpupool.policy.check.PolicyValidator;
import io.gpupool.policy.check.ValidationReport;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.ruleset.RuleSetFiles;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every policy folder under policies-examples/ (one holding rule files; fleet/ holds the example
 * inventory instead) is a complete policy: it compiles, lints clean and its own tests pass.
 */
class PolicyExamplesTest {
    private static final Path EXAMPLES = Path.of("policies-examples");

    static Stream<String> examples() throws IOException {
        try (Stream<Path> dirs = Files.list(EXAMPLES)) {
            return dirs.filter(Files::isDirectory).filter(PolicyExamplesTest::holdsRules)
                    .map(p -> p.getFileName().toString()).sorted().toList().stream();
        }
    }

    private static boolean holdsRules(Path folder) {
        try (Stream<Path> files = Files.walk(folder)) {
            return files.anyMatch(f -> f.toString().endsWith(".drl"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @ParameterizedTest(name = "{0} is a valid policy with passing tests")
    @MethodSource("examples")
    void examplePolicyIsValidAndItsTestsPass(String name) {
        Path folder = EXAMPLES.resolve(name);
        RuleSet set = RuleSetFiles.fromDirectory(folder, name);

        ValidationReport report = new PolicyValidator(DefaultPolicy.ENGINE).validate(set);

        assertThat(folder.resolve("README.md")).exists();
        assertThat(set.ruleFiles().keySet()).extracting(p -> p.substring(0, p.indexOf('/')))
                .containsAll(List.of("tiering", "admission", "priority", "quota", "preemption", "reclamation"));
        assertThat(set.testFiles()).isNotEmpty();
        assertThat(report.errors()).as(name).isEmpty();
        assertThat(report.tests().orElseThrow().allPassed()).isTrue();
    }

    @ParameterizedTest(name = "every rule of {0} fires in one of its tests")
    @MethodSource("examples")
    void everyRuleOfTheExampleIsCoveredByItsTests(String name) {
        ValidationReport report = new PolicyValidator(DefaultPolicy.ENGINE)
                .validate(RuleSetFiles.fromDirectory(EXAMPLES.resolve(name), name));

        assertThat(report.tests().orElseThrow().coverage().neverFired()).as(name).isEmpty();
    }

    @org.junit.jupiter.api.Test
    void thereAreTheThreeDocumentedExamples() throws IOException {
        assertThat(examples()).containsExactly("inference-first", "research-lab-fair-share", "tiered-enterprise");
    }
}
