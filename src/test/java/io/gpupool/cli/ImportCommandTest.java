package io.gpupool.cli;

import io.gpupool.testing.Api;
import io.gpupool.testing.DatabaseTest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code gpupool import k8s|slurm --cluster NAME FILE} against a running service. */
@MicronautTest(transactional = false)
@DatabaseTest
class ImportCommandTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    EmbeddedServer server;
    CliRun cli;
    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(client);
        cli = CliRun.against(server.getURL().toString(), ADMIN);
    }

    private static Path sample(Path dir, String path) throws Exception {
        Path file = dir.resolve(Path.of(path).getFileName().toString());
        try (InputStream in = ImportCommandTest.class.getResourceAsStream("/inventory-samples/" + path)) {
            Files.write(file, in.readAllBytes());
        }
        return file;
    }

    @Test
    void aSlurmDumpIsImportedAndTheClustersTableShowsItsSourceAndCounts(@TempDir Path dir) throws Exception {
        Path dump = sample(dir, "slurm/written-from-docs__scontrol-show-node.txt");

        CliRun.Result dry = cli.run("import", "slurm", "--cluster", "cli-slurm", "--dry-run", dump.toString());
        assertThat(dry.exitCode()).as(dry.err()).isZero();
        assertThat(dry.out()).startsWith("would import cluster cli-slurm (new) from slurm")
                .contains("nodes: 4 added").contains("skipped login-01: no GPU");

        CliRun.Result done = cli.run("import", "slurm", "--cluster", "cli-slurm", dump.toString());
        assertThat(done.exitCode()).as(done.err()).isZero();
        assertThat(done.out()).contains("gpus: 22 added, 0 changed, 0 retired");

        CliRun.Result clusters = cli.run("clusters");
        assertThat(clusters.out()).containsPattern("cli-slurm\\s+cli-slurm\\s+-\\s+4\\s+22\\s+2\\s+slurm\\s+OK");
    }

    @Test
    void aBrokenNodeListEndsWithExitCodeOneAndTheServersReason(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("nodes.json");
        Files.writeString(bad, "{\"kind\": \"NodeList\", \"items\": [{\"kind\": \"Node\", \"metadata\": {\"name\": \"x\"");

        CliRun.Result r = cli.run("import", "k8s", "--cluster", "cli-bad", bad.toString());

        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).contains("400").contains("not valid JSON");
    }

    @Test
    void anUnknownFormatIsAUsageError(@TempDir Path dir) throws Exception {
        Path any = dir.resolve("x.txt");
        Files.writeString(any, "x");

        assertThat(cli.run("import", "lsf", "--cluster", "c", any.toString()).exitCode()).isEqualTo(2);
    }
}
