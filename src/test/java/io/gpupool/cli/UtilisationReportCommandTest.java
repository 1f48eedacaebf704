package io.gpupool.cli;

import io.gpupool.telemetry.ActivitySample;
import io.gpupool.telemetry.TelemetryWriter;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.gpupool.testing.TestClock;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code gpupool report utilisation} on a known day: vision holds 2 H100 from 01:00, busy at 60 % for the
 * first hour, idle (1 %) for the second, and from 03:00 its agent says nothing; the lease is still
 * held when the report is asked for at 04:00.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UtilisationReportCommandTest {
    static final String[] WINDOW = {"--from", "2027-01-04T00:00:00Z", "--to", "2027-01-04T04:00:00Z"};

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    EmbeddedServer server;
    @Inject
    TestClock clock;
    @Inject
    TelemetryWriter telemetry;
    CliRun cli;
    String lease;

    @BeforeAll
    void timeline() {
        Api api = new Api(client);
        Instant t0 = Instant.parse("2027-01-04T00:00:00Z");
        clock.freezeAt(t0);
        SmallFleet.load(api);
        clock.advance(Duration.ofHours(1));
        Reply placed = api.post("/api/v1/requests", SmallFleet.request("vision", "training", 2, "pool", "training"), ADMIN);
        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        lease = placed.body().at("/lease/id").asText();
        for (int minute = 0; minute < 120; minute++) {
            Instant at = t0.plus(Duration.ofMinutes(60 + minute));
            List<ActivitySample> samples = new ArrayList<>();
            placed.body().at("/lease/shares").forEach(s -> samples.add(new ActivitySample(s.get("deviceId").asText(),
                    null, null, at, "GR_ENGINE_ACTIVE", at.isBefore(t0.plus(Duration.ofHours(2))) ? 0.6 : 0.01, null, "dcgm")));
            telemetry.submit("h100-a", null, samples).join();
        }
        clock.advance(Duration.ofHours(3));
        cli = CliRun.against(server.getURL().toString(), ADMIN);
    }

    @Test
    void utilisationPrintsAllocatedAgainstEffectiveAndTheIdleHolders() {
        CliRun.Result result = cli.run(concat("report", "utilisation", "--group-by", "tenant"));

        assertThat(result.exitCode()).as(result.err()).isZero();
        // 6 GPU-h allocated (01:00 to 04:00), 4 of them measured: 2 × 0.6 + 2 × 0.01 = 1.22 effective, 2 idle
        assertThat(result.out()).contains("ALLOCATED_H", "EFFECTIVE_H", "IDLE_H")
                .containsPattern("2027-01-04T00:00:00Z\\s+vision\\s+6\\.0\\s+1\\.22\\s+0\\.305\\s+4\\.0\\s+2\\.0")
                .containsPattern(lease + "\\s+vision\\s+training\\s+H100-SXM-80G\\s+2\\.0\\s+6\\.0\\s+2\\.0");
    }

    @Test
    void theIdleHoldersCanBeCutShortAndTheRowsPrintedAsCsv() {
        CliRun.Result result = cli.run(concat("report", "utilisation", "--csv", "--top", "1"));

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out().lines().toList()).containsExactly(
                "BUCKET,ALLOCATED_H,EFFECTIVE_H,UTIL,COVERED_H,NO_TELEMETRY_H,BEYOND_RETENTION_H,IDLE_H,FB_USED",
                "2027-01-04T00:00:00Z,6.0,1.22,0.305,4.0,2.0,0.0,2.0,-"); // no framebuffer reading
        assertThat(cli.run(concat("report", "utilisation", "--top", "0")).exitCode()).isEqualTo(1);
    }

    private static String[] concat(String... head) {
        List<String> all = new ArrayList<>(List.of(head));
        all.addAll(List.of(WINDOW));
        return all.toArray(String[]::new);
    }
}
