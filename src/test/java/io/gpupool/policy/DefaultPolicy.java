package io.gpupool.policy;

import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.ruleset.RuleSetFiles;
import io.gpupool.policy.scenario.ScenarioResult;
import io.gpupool.policy.scenario.ScenarioRunner;
import org.junit.jupiter.api.DynamicTest;

import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The default rule set compiled once per JVM (a KieBase compile costs ~1 s), shared by the rule tests. */
public final class DefaultPolicy {
    public static final RuleSet RULE_SET = RuleSetFiles.defaultRuleSet();
    public static final CompiledPolicy POLICY = new PolicyCompiler().compile(RULE_SET).orThrow();
    public static final PolicyEngine ENGINE = new PolicyEngine();
    public static final ScenarioRunner RUNNER = new ScenarioRunner(ENGINE);

    private DefaultPolicy() {
    }

    /** One dynamic test per shipped scenario whose file name starts with {@code tests/<prefix>-}. */
    public static Stream<DynamicTest> scenarios(String prefix) {
        List<String> files = RULE_SET.testFiles().keySet().stream()
                .filter(p -> p.startsWith("tests/" + prefix + "-")).toList();
        assertThat(files).as("scenarios for " + prefix).isNotEmpty();
        return files.stream().map(path -> DynamicTest.dynamicTest(path.substring(6), () -> {
            ScenarioResult result = RUNNER.run(POLICY, path, RULE_SET.files().get(path));
            assertThat(result.passed()).as(result.toString()).isTrue();
        }));
    }
}
