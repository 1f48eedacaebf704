package io.gpupool.policy.engine;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.ruleset.RuleSet;

import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** Small rule sets and edits of the default one, for the compiler's tests. */
final class TestRuleSets {
    private TestRuleSets() {
    }

    /** A rule file's first lines: its package under {@code io.gpupool.rules}, the request fact, the decisions global. */
    static String header(String pkg) {
        return "package io.gpupool.rules." + pkg + ";\nimport io.gpupool.policy.fact.RequestFact;\n"
                + "global io.gpupool.policy.decision.Decisions decisions;\n";
    }

    /** {@code files} with the default set's policy tests. */
    static Map<String, String> withTests(Map<String, String> files) {
        Map<String, String> out = new TreeMap<>(files);
        out.putAll(DefaultPolicy.RULE_SET.testFiles());
        return out;
    }

    /** {@code set} with {@code from} replaced by {@code to} in {@code file}, which must hold it. */
    static RuleSet changed(RuleSet set, String file, String from, String to) {
        Map<String, String> files = new TreeMap<>(set.files());
        String text = files.get(file);
        assertThat(text).contains(from);
        files.put(file, text.replace(from, to));
        return new RuleSet("candidate", files);
    }
}
