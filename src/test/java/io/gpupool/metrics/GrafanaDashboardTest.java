package io.gpupool.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/grafana/gpupool.json is an importable dashboard whose queries parse and name documented meters. */
class GrafanaDashboardTest {
    static final Path DASHBOARD = Path.of("docs/grafana/gpupool.json");

    private static JsonNode dashboard() throws Exception {
        return new ObjectMapper().readTree(Files.readString(DASHBOARD));
    }

    private static List<String> expressions(JsonNode dashboard) {
        List<String> exprs = new ArrayList<>();
        dashboard.get("panels").forEach(p -> p.path("targets").forEach(t -> exprs.add(t.get("expr").asText())));
        return exprs;
    }

    @Test
    void theDashboardIsADashboardModelGrafanaImports() throws Exception {
        JsonNode d = dashboard();

        assertThat(d.get("title").asText()).isEqualTo("gpupool");
        assertThat(d.get("uid").asText()).isNotBlank();
        assertThat(d.get("schemaVersion").asInt()).isGreaterThanOrEqualTo(36);
        assertThat(d.at("/__inputs/0/pluginId").asText()).isEqualTo("prometheus");
        Set<Integer> ids = new HashSet<>();
        d.get("panels").forEach(p -> {
            assertThat(ids.add(p.get("id").asInt())).as("unique panel id " + p.get("id")).isTrue();
            assertThat(p.get("type").asText()).isIn("row", "timeseries", "stat");
            assertThat(p.at("/gridPos/w").asInt()).isBetween(1, 24);
            if (!p.get("type").asText().equals("row")) {
                assertThat(p.get("targets")).as(p.get("title").asText()).isNotEmpty();
            }
        });
        assertThat(expressions(d)).hasSizeGreaterThan(20);
    }

    @Test
    void everyMeterTheDashboardQueriesIsDocumented() throws Exception {
        String docs = Files.readString(Path.of("docs/operations.md"));
        Pattern meter = Pattern.compile("\\b(gpupool_[a-z_]+?|http_server_requests_seconds)(_bucket|_sum|_count)?\\b");
        for (String expr : expressions(dashboard())) {
            Matcher m = meter.matcher(expr);
            assertThat(m.find()).as("a gpupool meter in " + expr).isTrue();
            do {
                assertThat(docs).as("docs/operations.md documents " + m.group(1)).contains("`" + m.group(1) + "`");
            } while (m.find());
        }
    }

    @Test
    void everyQueryOfTheDashboardParsesForPromtool(@TempDir Path dir) throws Exception {
        Path promtool = PrometheusText.promtool();
        Assumptions.assumeTrue(promtool != null,
                "SKIPPED: promtool is missing (install the Debian package 'prometheus'; .ci/run does)");
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        int i = 0;
        for (String expr : expressions(dashboard())) {
            String concrete = expr.replace("$__rate_interval", "5m").replace("$pool", ".*").replace("$model", ".*");
            rules.append("      - record: dashboard:query").append(i++).append("\n        expr: '")
                    .append(concrete.replace("'", "''")).append("'\n");
        }
        Path file = dir.resolve("dashboard-queries.yml");
        Files.writeString(file, rules);

        PrometheusText.Result result = PrometheusText.run(promtool, null, "check", "rules", file.toString());

        assertThat(result.exitCode()).as(result.output()).isZero();
    }
}
