package io.gpupool.metrics;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shipped alert rules (docs/prometheus/gpupool-alerts.yml) are valid for promtool, fire as their
 * unit tests expect, and name only metrics gpupool exports. Skipped, saying so, without promtool
 * (Debian package prometheus; .ci/run installs it).
 */
class PrometheusAlertRulesTest {
    static final Path RULES = Path.of("docs/prometheus/gpupool-alerts.yml");
    static final Path RULE_TESTS = Path.of("docs/prometheus/gpupool-alerts.test.yml");

    Path promtool;

    @BeforeEach
    void findPromtool() {
        promtool = PrometheusText.promtool();
        Assumptions.assumeTrue(promtool != null,
                "SKIPPED: promtool is missing (install the Debian package 'prometheus'; .ci/run does)");
    }

    @Test
    void theAlertRulesPassPromtoolCheckRules() throws Exception {
        PrometheusText.Result result = PrometheusText.run(promtool, null, "check", "rules", RULES.toString());

        assertThat(result.exitCode()).as(result.output()).isZero();
        assertThat(result.output()).contains("SUCCESS");
    }

    @Test
    void theAlertRulesFireAsTheirPromtoolUnitTestsExpect() throws Exception {
        PrometheusText.Result result = PrometheusText.run(promtool, null, "test", "rules", RULE_TESTS.toString());

        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    @Test
    void theAlertRulesNameOnlyMetricsTheServiceExports() throws Exception {
        String rules = Files.readString(RULES);
        String docs = Files.readString(Path.of("docs/operations.md"));
        Matcher names = Pattern.compile("\\bgpupool_[a-z_]+").matcher(rules);
        int found = 0;
        while (names.find()) {
            found++;
            assertThat(docs).as("docs/operations.md documents " + names.group()).contains("`" + names.group());
        }
        assertThat(found).isPositive();
    }
}
