package io.gpupool.cli;

import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.FleetLoaded;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code gpupool report export}: what the service recorded, as CSV a spreadsheet reads back. */
@MicronautTest(transactional = false)
@DatabaseTest
class ReportExportCommandTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    EmbeddedServer server;
    Api api;
    CliRun cli;

    @BeforeEach
    void setUp() {
        api = new Api(client);
        FleetLoaded.ensure(api);
        cli = CliRun.against(server.getURL().toString(), ADMIN);
    }

    @Test
    void leasesAreExportedOneRowEachWithTheirGpusAndMilliGpus() throws Exception {
        String lease = placeEightH100sFor("nlp", "export-leases");

        CliRun.Result result = cli.run("report", "export", "leases", "--tenant", "nlp");

        assertThat(result.exitCode()).as(result.err()).isZero();
        List<CSVRecord> rows = csv(result.out());
        assertThat(rows.get(0).toList()).containsExactly("ID", "REQUEST", "TENANT", "POOL", "KIND", "PRIORITY", "STATE",
                "GPUS", "MILLI", "BORROWED", "CREATED", "EXPIRES");
        assertThat(rows.subList(1, rows.size())).anySatisfy(r -> {
            assertThat(r.get(0)).isEqualTo(lease);
            assertThat(r.get(2)).isEqualTo("nlp");
            assertThat(r.get(7)).isEqualTo("8");
            assertThat(r.get(8)).isEqualTo("8000");
        }).allSatisfy(r -> assertThat(r.get(2)).isEqualTo("nlp"));
    }

    @Test
    void decisionsAreWrittenToAFileWithTheirRulesAndPolicyVersionAndMessagesWhole(@TempDir Path dir) throws Exception {
        String lease = placeEightH100sFor("nlp", "export-decisions");
        Path file = dir.resolve("decisions.csv");

        CliRun.Result result = cli.run("report", "export", "decisions", "--lease", lease, "--since", "2000-01-01T00:00:00Z",
                "--out", file.toString());

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.err()).contains("wrote").contains(file.toString());
        List<CSVRecord> rows = csv(Files.readString(file));
        assertThat(rows.get(0).toList()).containsExactly("ID", "AT", "ACTION", "REQUEST", "TENANT", "REASON", "RULES",
                "MESSAGE", "LEASE", "POLICY");
        assertThat(rows.subList(1, rows.size())).anySatisfy(r -> {
            assertThat(r.get(2)).isEqualTo("ADMIT");
            assertThat(r.get(6)).isNotBlank().isNotEqualTo("-");
            assertThat(r.get(8)).isEqualTo(lease);
            assertThat(r.get(9)).isEqualTo("v1");
        });
    }

    @Test
    void anUnknownReportIsAUsageErrorNamingTheKnownOnes() {
        CliRun.Result result = cli.run("report", "export", "gpu-hours");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("'decisions' or 'leases'").contains("gpu-hours");
    }

    private String placeEightH100sFor(String tenant, String key) {
        Reply placed = api.post("/api/v1/requests", Map.of("tenant", tenant, "kind", "training", "gpus", 8,
                "models", List.of("H100-SXM-80G")), ADMIN, "Idempotency-Key", key);
        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        return placed.body().at("/lease/id").asText();
    }

    private static List<CSVRecord> csv(String text) throws Exception {
        return CSVFormat.RFC4180.parse(new StringReader(text)).getRecords();
    }
}
