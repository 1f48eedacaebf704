package io.gpupool.console;

import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.ConsoleBrowser;
import io.gpupool.testing.FleetLoaded;
import io.gpupool.testing.TestClock;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console's Replay view in a real browser (headless Chromium) against the example fleet: an admin
 * replays twenty minutes of recorded history under the active policy and v1, follows it to the end,
 * and reads the summary with each tenant's cost, the differing fates and one plot with a line per
 * policy; a tenant is shown no Replay view and the API refuses it. Its own class (and context) because
 * it moves the service's clock to record history. Skipped without Chromium.
 */
@MicronautTest(transactional = false)
@ExtendWith(ConsoleBrowser.Available.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReplayConsoleBrowserTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    EmbeddedServer server;
    @Inject
    TestClock clock;
    Api api;
    ConsoleBrowser browser;
    Instant from;
    Instant to;

    @BeforeAll
    void recordTwentyMinutes() {
        browser = new ConsoleBrowser(server.getURL().toString(), 1280, 900);
        api = new Api(client);
        FleetLoaded.ensure(api);
        assertThat(api.post("/api/v1/prices", Map.of("model", "H100-SXM-80G", "perGpuHour", 2.00,
                "effectiveFrom", "2026-01-01T00:00:00Z"), ADMIN).status()).isEqualTo(201);
        // a stopped clock: the lease holds exactly 20 minutes however long the calls take
        clock.freezeAt(Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).plusSeconds(60));
        from = clock.instant().minusSeconds(1);
        Reply placed = api.post("/api/v1/requests", Map.of("tenant", "nlp", "kind", "training", "gpus", 8,
                "models", List.of("H100-SXM-80G")), ADMIN);
        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        clock.advance(Duration.ofMinutes(20));
        assertThat(api.post("/api/v1/leases/" + placed.body().at("/lease/id").asText() + "/release", Map.of(), ADMIN)
                .status()).isEqualTo(200);
        clock.advance(Duration.ofMinutes(5));
        to = clock.instant();
    }

    @AfterAll
    void closeBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    private void type(String id, String text) {
        WebElement input = browser.waitFor(By.id(id));
        input.clear();
        input.sendKeys(text);
    }

    @Test
    void anAdminReplaysRecordedHistoryAndReadsTheSummaryWithCostTheDifferencesAndOneLinePerPolicy() {
        browser.signIn(ADMIN);
        browser.open("replay");
        type("replay-from", from.toString());
        type("replay-to", to.toString());
        new Select(browser.waitFor(By.id("replay-version"))).selectByValue("1");
        type("replay-pass-every", "1m");
        type("replay-sweep-every", "5m");
        browser.waitFor(By.id("replay-start")).click();

        browser.until(Duration.ofMinutes(5), d ->
                d.findElements(By.cssSelector("#replay-state[data-state=DONE]")).isEmpty() ? null : true);
        browser.until(Duration.ofMinutes(1), d ->
                d.findElements(By.cssSelector("canvas[data-chart], #view-replay .problem")).isEmpty() ? null : true);
        browser.settle();
        assertThat(browser.all(By.cssSelector("#view-replay .problem"))).as(browser.mainText()).isEmpty();

        assertThat(browser.script("return document.getElementById('replay-progress').value;").toString()).isEqualTo("100");
        String summary = browser.text(By.id("replay-summary-table"));
        assertThat(summary).contains("active", "v1", "Δ v1 − active");
        // nlp held 8 H100s for 20 minutes at 2.00 EUR an hour: 5.33 under both policies, a delta of 0
        assertThat(summary).containsPattern("requests_placed\\s+all\\s+1\\s+1\\s+0")
                .containsPattern("cost_eur\\s+tenant=nlp\\s+5\\.33\\s+5\\.33\\s+0");
        assertThat(browser.text(By.id("replay-differences-table"))).contains("Under active", "Under the candidate");
        // one line per policy on one plot, a point per sample (every 10 minutes of the 25-minute window)
        List<Object> chart = browser.script("""
                const c = Chart.getChart(document.querySelector('#replay-chart canvas'));
                return [c.config.type, c.data.datasets.map(d => d.label).join(','), c.data.labels.length,
                        c.data.datasets.reduce((n, d, i) => n + c.getDatasetMeta(i).data.length, 0)];""");
        assertThat(chart.get(0)).isEqualTo("line");
        assertThat(chart.get(1)).isEqualTo("active,v1");
        assertThat(((Number) chart.get(2)).longValue()).isEqualTo(3);
        assertThat(((Number) chart.get(3)).longValue()).isEqualTo(6);
        assertThat(browser.all(By.cssSelector("#replay-files button[data-file]"))).extracting(e -> e.getAttribute("data-file"))
                .containsExactly("summary.csv", "differences.csv", "fates.csv", "timeseries.csv");
        browser.screenshot("replay");
    }

    @Test
    void aTenantIsShownNoReplayViewAndItsApiAnswers403() {
        String nlp = api.post("/api/v1/tokens", Map.of("name", "nlp-replay", "role", "tenant", "tenantId", "nlp"), ADMIN)
                .body().get("secret").asText();

        browser.signIn(nlp);

        assertThat(browser.all(By.id("nav-replay"))).isEmpty();
        assertThat(api.get("/api/v1/policies/replay", nlp).status()).isEqualTo(403);
        assertThat(api.post("/api/v1/policies/replay", Map.of("history", Map.of("from", from.toString(), "to", to.toString()),
                "policies", List.of("active")), nlp).status()).isEqualTo(403);
    }
}
