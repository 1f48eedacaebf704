package io.gpupool.console;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.ConsoleBrowser;
import io.gpupool.testing.FleetLoaded;
import io.gpupool.testing.PolicyFiles;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console in a real browser (headless Chromium), against the service with the example fleet:
 * signing in as an admin and as a tenant, every view, the queue's explain timeline, a lease
 * released, a rule file edited, dry-run, activated and rolled back. What a tenant may see is the
 * API's to decide; these tests check the console shows no more. Skipped without Chromium.
 */
@MicronautTest(transactional = false)
@ExtendWith(ConsoleBrowser.Available.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleBrowserTest {
    static final String LABEL_RULE = """

            rule "GPU with RDMA in an NVLink domain is labelled multi-node"
            when
                $d : DeviceFact( nvlink, rdma )
            then
                decisions.label($d, "multi-node", "MULTI_NODE", "NVLink inside the node, RDMA between nodes");
            end
            """;

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    EmbeddedServer server;
    @Inject
    io.gpupool.request.scheduling.LifecycleScheduler scheduler;
    @Inject
    io.gpupool.accounting.FragmentationSampler sampler;
    @Inject
    io.gpupool.telemetry.TelemetryWriter telemetry;
    Api api;
    ConsoleBrowser browser;

    @BeforeAll
    void startBrowser() {
        browser = new ConsoleBrowser(server.getURL().toString(), 1280, 900);
    }

    @AfterAll
    void closeBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    @BeforeEach
    void setUp() {
        api = new Api(client);
        FleetLoaded.ensure(api);
        browser.driver().manage().window().setSize(new Dimension(1280, 900));
    }

    private String token(String name, String tenant) {
        Reply reply = api.post("/api/v1/tokens", Map.of("name", name, "role", "tenant", "tenantId", tenant), ADMIN);
        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        return reply.body().get("secret").asText();
    }

    private JsonNode place(String tenant, String kind, int gpus, String model) {
        Reply reply = api.post("/api/v1/requests", model == null ? Map.of("tenant", tenant, "kind", kind, "gpus", gpus)
                : Map.of("tenant", tenant, "kind", kind, "gpus", gpus, "models", List.of(model)), ADMIN);
        assertThat(reply.status()).as(reply.body().toString()).isIn(201, 202);
        return reply.body();
    }

    @Test
    void anAdminSignsInWithTheKeyboardAndWalksEveryViewOfTheExampleFleet() {
        String lease = place("research", "training", 8, "H100-SXM-80G").at("/lease/id").asText();

        long start = System.nanoTime();
        browser.driver().get(server.getURL() + "/");
        browser.script("sessionStorage.clear()");
        browser.driver().navigate().refresh();
        browser.waitFor(By.id("token")).sendKeys(ADMIN, Keys.ENTER);
        browser.until(d -> d.findElements(By.cssSelector("#usage-table tbody tr")).size() > 1 ? true : null);
        browser.settle();
        long firstViewMillis = (System.nanoTime() - start) / 1_000_000;
        System.out.println("Console first view (sign-in to fleet chart drawn) on the example fleet: " + firstViewMillis + " ms");

        assertThat(browser.text(By.id("identity"))).contains("admin");
        // one bar per pool and card model in each series, as the API's devices group
        Set<String> groups = new HashSet<>();
        api.get("/api/v1/devices?size=1000", ADMIN).body().get("items")
                .forEach(d -> groups.add(d.path("poolId").asText() + " · " + d.path("model").asText()));
        List<Long> points = browser.script("""
                const c = Chart.getChart(document.querySelector('canvas[data-chart]'));
                return c.data.datasets.map((d, i) => c.getDatasetMeta(i).data.length);""");
        assertThat(points).containsExactly((long) groups.size(), (long) groups.size(), (long) groups.size());
        Number allocated = browser.script("""
                const c = Chart.getChart(document.querySelector('canvas[data-chart]'));
                return c.data.datasets[1].data.reduce((a, b) => a + b, 0);""");
        assertThat(allocated.doubleValue()).isGreaterThanOrEqualTo(8);
        assertThat(browser.mainText()).contains("Frankfurt DC1", "Nodes (62)", "GPUs (324)");
        browser.screenshot("fleet");

        browser.open("fleet?node=fra-h100-01");
        assertThat(browser.text(By.id("devices-h"))).isEqualTo("GPUs (8)");

        browser.open("pools");
        assertThat(browser.all(By.cssSelector("#quota-table tbody tr"))).hasSizeGreaterThan(5);
        assertThat(browser.mainText()).contains("Critical reserved", "research");
        browser.screenshot("pools");

        browser.open("leases");
        assertThat(browser.mainText()).contains(lease);
        browser.screenshot("leases");

        browser.open("decisions?lease=" + lease);
        assertThat(browser.text(By.id("decision-table"))).contains("ADMIT", "research");
        browser.screenshot("decisions");
        browser.open("decisions?tenant=research&action=ADMIT&rule=TRAINING+POOL&since=2020-01-01T00:00:00Z");
        assertThat(browser.text(By.id("decision-table"))).contains(lease).doesNotContain("QUEUE");

        browser.open("policy");
        assertThat(browser.text(By.id("history-verify"))).startsWith("Hash chain intact");
        assertThat(browser.text(By.id("version-table"))).contains("v1", "active");
    }

    @Test
    void aTenantSeesOnlyItsOwnLeasesRequestsAndDecisionsInEveryView() {
        String nlpLease = place("nlp", "training", 1, "H100-SXM-80G").at("/lease/id").asText();
        JsonNode ads = place("ads", "inference", 1, null);
        String adsRequest = ads.at("/request/id").asText();
        String adsLease = ads.at("/lease/id").asText();

        browser.signIn(token("nlp-console", "nlp"));
        assertThat(browser.text(By.id("identity"))).contains("tenant nlp");
        assertThat(browser.all(By.id("nav-policy"))).as("no policy view for a tenant").isEmpty();

        browser.open("leases?state=");
        assertThat(browser.mainText()).contains(nlpLease).doesNotContain(adsLease, "ads");
        browser.open("leases?state=&tenant=ads");
        assertThat(browser.text(By.cssSelector("main .problem"))).contains("403").doesNotContain(adsLease);
        browser.open("decisions");
        assertThat(browser.mainText()).contains(nlpLease).doesNotContain(adsLease, adsRequest);
        browser.open("queue");
        assertThat(browser.mainText()).doesNotContain(adsRequest);
        browser.open("queue?request=" + adsRequest);
        assertThat(browser.text(By.cssSelector("#explain .problem"))).contains("403", "not yours").doesNotContain("ads");
        browser.open("pools");
        assertThat(browser.text(By.id("quota-table"))).contains("nlp").doesNotContain("ads");
        browser.open("policy");
        assertThat(browser.text(By.cssSelector("main .problem"))).contains("403");
    }

    @Test
    void theQueueShowsWhyARequestWaitsAndItsExplainTimelineNamesRulesAndPolicyVersion() {
        String queued = null;
        for (int i = 0; i < 8 && queued == null; i++) {
            JsonNode answer = place("assistant", "training", 8, "H100-SXM-80G");
            if (answer.at("/request/state").asText().equals("QUEUED")) {
                queued = answer.at("/request/id").asText();
            }
        }
        assertThat(queued).as("assistant's quota queues a request").isNotNull();

        browser.signIn(ADMIN);
        browser.open("queue");
        WebElement row = browser.waitFor(By.xpath("//table[contains(@class,'queue-table')]//tr[.//a[text()='" + queued + "']]"));
        assertThat(row.getText()).contains("assistant", "QUOTA");
        row.findElement(By.cssSelector("a.explain-link")).click();
        browser.settle();
        String timeline = browser.text(By.id("explain-timeline"));
        assertThat(timeline).contains("QUEUE", "policy v1", "Rules:");
        assertThat(browser.text(By.id("explain-summary"))).contains(queued, "QUEUED", "v1");
        browser.screenshot("queue-explain");
    }

    @Test
    void anOrgAdminApprovesItsTeamsLargeRequestFromTheApprovalsView() {
        Reply held = api.post("/api/v1/requests", Map.of("tenant", "nlp", "kind", "training", "gpus", 24, "gangSize", 3), ADMIN);
        assertThat(held.status()).as(held.body().toString()).isEqualTo(202);
        String request = held.body().at("/request/id").asText();
        assertThat(held.body().at("/request/state").asText()).isEqualTo("AWAITING_APPROVAL");
        Reply token = api.post("/api/v1/tokens", Map.of("name", "research-lead-console", "role", "org-admin", "tenantId", "research"), ADMIN);
        assertThat(token.status()).as(token.body().toString()).isEqualTo(201);

        browser.signIn(token.body().get("secret").asText());
        browser.open("approvals");
        assertThat(browser.text(By.id("approval-table"))).contains(request, "nlp", "More than 16 GPUs need the organisation's approval");
        browser.waitFor(By.cssSelector("input[data-request='" + request + "']")).sendKeys("quarterly run, agreed with finance");
        browser.driver().findElement(By.cssSelector("button[data-request='" + request + "'][data-act='approve']")).click();
        browser.until(d -> d.findElement(By.id("approval-status")).getText().contains("approved") ? true : null);

        assertThat(browser.text(By.id("approval-status"))).contains(request).containsAnyOf("PLACED", "QUEUED");
        JsonNode approval = api.get("/api/v1/requests/" + request, ADMIN).body().at("/request/approval");
        assertThat(approval.get("verdict").asText()).isEqualTo("APPROVED");
        assertThat(approval.get("message").asText()).isEqualTo("quarterly run, agreed with finance");
        browser.settle();
        assertThat(browser.text(By.id("approval-table"))).doesNotContain(request);
    }

    @Test
    void theReportsViewDrawsUsageAndCostChartsFromTheLedgerWithABarPerBucketAndSeries() {
        place("nlp", "training", 8, "H100-SXM-80G");

        browser.signIn(ADMIN);
        browser.open("reports");
        browser.until(d -> d.findElements(By.cssSelector("canvas[data-chart]")).size() >= 4 ? true : null);
        browser.settle();

        List<List<Object>> charts = browser.script("""
                return [...document.querySelectorAll('canvas[data-chart]')].map(canvas => {
                  const c = Chart.getChart(canvas);
                  return [canvas.dataset.chart, c.data.labels.length,
                          c.data.datasets.map(d => d.label).join(','),
                          c.data.datasets.reduce((n, d, i) => n + c.getDatasetMeta(i).data.length, 0),
                          c.data.datasets.reduce((s, d) => s + d.data.reduce((a, b) => a + b, 0), 0)];
                });""");
        assertThat(charts).extracting(c -> c.get(0)).startsWith("GPU-hours by tenant, last 7 days",
                "Fleet GPU-hours: allocated, unallocated, unhealthy", "Cost by tenant, last 7 days", "Cost by card model, last 7 days");
        List<Object> byTenant = charts.get(0);
        assertThat((String) byTenant.get(2)).contains("nlp");
        // one bar per bucket (day) and tenant: every series has a value for every label
        assertThat(((Number) byTenant.get(3)).longValue())
                .isEqualTo(((Number) byTenant.get(1)).longValue() * ((String) byTenant.get(2)).split(",").length);
        assertThat(((Number) byTenant.get(4)).doubleValue()).as("the lease's GPU time so far").isPositive();
        List<Object> fleet = charts.get(1);
        assertThat(fleet.get(2)).isEqualTo("allocated,unallocated,unhealthy");
        assertThat(((Number) fleet.get(4)).doubleValue()).as("the fleet's 324 GPUs' hours").isPositive();
        assertThat(browser.all(By.xpath("//button[text()='Download CSV']"))).hasSize(charts.size());
    }

    @Test
    void theReportsViewDrawsQueueWaitReclamationAndFragmentationChartsAndATenantSeesOnlyItsOwn() {
        place("nlp", "training", 8, "H100-SXM-80G");
        // a reclaim: rl's lease on a card that breaks is reclaimed by the sweep; the card then mends
        JsonNode rl = place("rl", "dev", 1, null);
        String device = rl.at("/lease/shares/0/deviceId").asText();
        assertThat(api.post("/api/v1/devices/" + device + "/heartbeat", Map.of("health", "UNHEALTHY"), ADMIN).status())
                .isEqualTo(200);
        scheduler.runOnce();
        assertThat(api.get("/api/v1/leases/" + rl.at("/lease/id").asText(), ADMIN).body().get("state").asText())
                .isEqualTo("RECLAIMED");
        assertThat(api.post("/api/v1/devices/" + device + "/heartbeat", Map.of("health", "HEALTHY"), ADMIN).status())
                .isEqualTo(200);
        sampler.sample();

        browser.signIn(ADMIN);
        browser.open("reports");
        browser.until(d -> d.findElements(By.cssSelector("canvas[data-chart]")).size() >= 8 ? true : null);
        browser.settle();
        Map<String, List<Object>> admin = operatingCharts();
        List<Object> wait = admin.get("Queue wait (p90, minutes) per card model, last 7 days");
        assertThat((String) wait.get(1)).contains("H100-SXM-80G");
        assertThat(((Number) wait.get(2)).longValue()).as("one bar per day and model")
                .isEqualTo(((Number) wait.get(0)).longValue() * ((String) wait.get(1)).split(",").length);
        List<Object> reclaimed = admin.get("GPU-hours returned by reclamation, by rule, last 7 days");
        assertThat((String) reclaimed.get(1)).contains("Lease on an unhealthy device is reclaimed");
        assertThat(((Number) reclaimed.get(2)).longValue())
                .isEqualTo(((Number) reclaimed.get(0)).longValue() * ((String) reclaimed.get(1)).split(",").length);
        List<Object> stranded = admin.get("Stranded GPUs per pool, last 24 hours");
        java.time.Instant end = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.HOURS).plusSeconds(3600);
        int pools = new java.util.HashSet<>(api.get("/api/v1/reports/fragmentation?groupBy=pool&step=hour&from="
                + end.minus(java.time.Duration.ofDays(1)) + "&to=" + end, ADMIN).body().get("rows").findValuesAsText("pool")).size();
        assertThat(pools).as("pools sampled").isPositive();
        assertThat(((String) stranded.get(1)).split(",")).as("one series per pool").hasSize(pools);
        assertThat(((Number) stranded.get(2)).longValue()).as("one bar per sampled hour and pool")
                .isEqualTo(((Number) stranded.get(0)).longValue() * pools);
        assertThat(browser.all(By.xpath("//button[text()='Download CSV']"))).hasSize(8);
        browser.screenshot("reports");
        browser.script("document.getElementById('report-queue-wait-model').scrollIntoView()");
        browser.settle();
        browser.screenshot("reports-operating");

        browser.signIn(token("nlp-reports", "nlp"));
        browser.open("reports");
        browser.until(d -> d.findElements(By.cssSelector("canvas[data-chart]")).size() >= 7 ? true : null);
        browser.settle();
        Map<String, List<Object>> nlp = operatingCharts();
        assertThat(nlp.get("GPU-hours returned by reclamation, by rule, last 7 days").get(2))
                .as("rl's reclaim is not nlp's").isEqualTo(0L);
        JsonNode own = api.get("/api/v1/reports/queues?groupBy=model&step=day&from=" + end.minus(java.time.Duration.ofDays(7))
                + "&to=" + end, token("nlp-api", "nlp")).body();
        java.util.Set<String> ownModels = new java.util.TreeSet<>();
        own.get("rows").forEach(r -> {
            if (r.get("admitted").asInt() > 0) {
                ownModels.add(r.get("group").get("model").asText());
            }
        });
        String rlModel = api.get("/api/v1/devices/" + device, ADMIN).body().get("model").asText();
        assertThat((String) wait.get(1)).as("the admin sees rl's admission").contains(rlModel);
        assertThat(new java.util.TreeSet<>(List.of(((String) nlp.get("Queue wait (p90, minutes) per card model, last 7 days")
                .get(1)).split(",")))).as("nlp's own admissions' models only").isEqualTo(ownModels);
        assertThat(browser.text(By.cssSelector("#report-fragmentation-pool .problem"))).contains("403");
    }

    @Test
    void theReportsViewDrawsAllocatedAgainstEffectiveGpuHoursWithTwoBarsPerDay() {
        JsonNode placed = place("nlp", "training", 8, "H100-SXM-80G");
        java.time.Instant at = java.time.Instant.now();
        List<io.gpupool.telemetry.ActivitySample> samples = new java.util.ArrayList<>();
        placed.at("/lease/shares").forEach(s -> samples.add(new io.gpupool.telemetry.ActivitySample(
                s.get("deviceId").asText(), null, null, at, "GR_ENGINE_ACTIVE", 0.7, 40960L, "dcgm")));
        telemetry.submit("console-test", null, samples).join();

        browser.signIn(ADMIN);
        browser.open("reports");
        browser.until(d -> d.findElements(By.cssSelector("canvas[data-chart]")).size() >= 8 ? true : null);
        browser.settle();

        List<Object> chart = operatingCharts().get("Allocated vs effective GPU-hours, last 7 days");
        assertThat(chart).as("the utilisation chart is drawn").isNotNull();
        assertThat(chart.get(1)).isEqualTo("allocated,effective");
        java.time.Instant end = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.HOURS).plusSeconds(3600);
        JsonNode report = api.get("/api/v1/reports/utilisation?step=day&from=" + end.minus(java.time.Duration.ofDays(7))
                + "&to=" + end, ADMIN).body();
        long days = new java.util.HashSet<>(report.get("rows").findValuesAsText("bucket")).size();
        assertThat(days).as("days with allocated time").isPositive();
        assertThat(((Number) chart.get(0)).longValue()).as("one label per day").isEqualTo(days);
        assertThat(((Number) chart.get(2)).longValue()).as("two bars per day").isEqualTo(2 * days);
        List<Number> sums = browser.script("""
                const c = Chart.getChart(document.querySelector('canvas[data-chart="Allocated vs effective GPU-hours, last 7 days"]'));
                return c.data.datasets.map(d => d.data.reduce((a, b) => a + b, 0));""");
        assertThat(sums.get(1).doubleValue()).as("nlp's GPUs measured busy").isPositive();
        assertThat(sums.get(1).doubleValue()).as("effective never exceeds allocated").isLessThanOrEqualTo(sums.get(0).doubleValue());
        assertThat(browser.all(By.cssSelector("#report-utilisation button"))).extracting(e -> e.getText())
                .containsExactly("Download CSV");
        browser.script("document.getElementById('report-utilisation').scrollIntoView()");
        browser.settle();
        browser.screenshot("reports-utilisation");
    }

    /** Per operating chart drawn: labels, its series' names, how many bars it holds, and how many series. */
    private Map<String, List<Object>> operatingCharts() {
        List<List<Object>> charts = browser.script("""
                return [...document.querySelectorAll('canvas[data-chart]')].map(canvas => {
                  const c = Chart.getChart(canvas);
                  return [canvas.dataset.chart, c.data.labels.length, c.data.datasets.map(d => d.label).join(','),
                          c.data.datasets.reduce((n, d, i) => n + c.getDatasetMeta(i).data.length, 0),
                          c.data.datasets.length];
                });""");
        Map<String, List<Object>> byTitle = new java.util.HashMap<>();
        charts.forEach(c -> byTitle.put((String) c.get(0), c.subList(1, c.size())));
        return byTitle;
    }

    @Test
    void aTenantRenewsThenReleasesItsLeaseFromTheLeasesView() {
        String lease = place("rl", "dev", 1, null).at("/lease/id").asText();

        browser.signIn(token("rl-console", "rl"));
        browser.open("leases");
        WebElement ttl = browser.waitFor(By.cssSelector("input[aria-label='TTL seconds for lease " + lease + "']"));
        ttl.clear();
        ttl.sendKeys("7200");
        browser.driver().findElement(By.cssSelector("button[data-lease='" + lease + "'][data-act='renew']")).click();
        assertThat(browser.text(By.cssSelector("#lease-status .notice"))).contains(lease, "renewed for 7200 s", "ACTIVE");
        assertThat(api.get("/api/v1/leases/" + lease, ADMIN).body().get("expiresAt").isNull()).isFalse();

        browser.settle();
        browser.waitFor(By.cssSelector("button[data-lease='" + lease + "'][data-act='release']")).click();
        browser.until(d -> d.findElement(By.id("lease-status")).getText().contains("released") ? true : null);

        assertThat(browser.text(By.cssSelector("#lease-status .notice"))).contains(lease, "RELEASED");
        assertThat(api.get("/api/v1/leases/" + lease, ADMIN).body().get("state").asText()).isEqualTo("RELEASED");
        browser.settle();
        assertThat(browser.text(By.id("lease-table"))).doesNotContain(lease); // the ACTIVE list no longer holds it
    }

    @Test
    void anAdminEditsARuleFileDryRunsItSeesTheDeviceDiffThenActivatesAndRollsBack() {
        int active = api.get("/api/v1/policies", ADMIN).body().get("active").asInt();
        browser.signIn(ADMIN);
        browser.open("policy");
        new Select(browser.waitFor(By.id("edit-path"))).selectByValue("tiering/profile-labels.drl");
        browser.until(d -> d.findElement(By.id("edit-text")).getAttribute("value").contains("rule \"GPU with RDMA") ? true : null);
        WebElement text = browser.driver().findElement(By.id("edit-text"));
        text.sendKeys(Keys.chord(Keys.CONTROL, Keys.END));
        text.sendKeys(LABEL_RULE);
        browser.driver().findElement(By.id("edit-message")).sendKeys("Label multi-node training cards");
        browser.driver().findElement(By.cssSelector("#edit-form button[type=submit]")).click();

        String uploaded = browser.text(By.cssSelector("#upload-result .notice"));
        int candidate = latestVersion();
        assertThat(uploaded).contains("Uploaded as v" + candidate);
        assertThat(browser.text(By.id("policy-tests"))).contains("passed").doesNotContain("failed");

        browser.waitFor(By.id("dry-run-uploaded")).click();
        String verdict = browser.text(By.id("dry-run-verdict"));
        assertThat(verdict).contains("Active v" + active + ", candidate v" + candidate + ": safe to activate");
        String devices = browser.text(By.id("dry-run-devices"));
        assertThat(devices).contains("LABELS", "[multi-node, nvlink, rdma");
        browser.screenshot("policy-dry-run");

        browser.driver().findElement(By.id("change-message")).sendKeys("Try the multi-node label");
        browser.waitFor(By.cssSelector("button.activate[data-version='" + candidate + "']")).click();
        browser.until(d -> d.findElement(By.id("change-status")).getText().contains("v" + candidate + " is active") ? true : null);
        browser.driver().findElement(By.id("change-message")).sendKeys("Back to the shipped set");
        browser.waitFor(By.cssSelector("button.rollback[data-version='" + active + "']")).click();
        browser.until(d -> d.findElement(By.id("change-status")).getText()
                .contains("v" + active + " is active (was v" + candidate + ")") ? true : null);
        assertThat(api.get("/api/v1/policies", ADMIN).body().get("active").asInt()).isEqualTo(active);

        browser.until(d -> d.findElement(By.id("history-table")).getText().contains("ROLLED_BACK") ? true : null);
        assertThat(browser.text(By.id("history-verify"))).startsWith("Hash chain intact");
        new Select(browser.driver().findElement(By.id("diff-from"))).selectByValue(String.valueOf(active));
        new Select(browser.driver().findElement(By.id("diff-to"))).selectByValue(String.valueOf(candidate));
        browser.driver().findElement(By.cssSelector("#policy-diff button[type=submit]")).click();
        assertThat(browser.text(By.cssSelector("#diff-out .diff"))).contains("tiering/profile-labels.drl",
                "+ rule \"GPU with RDMA in an NVLink domain is labelled multi-node\"");
    }

    @Test
    void anAdminUploadsARuleSetAsAZipAndABrokenOneShowsItsCompileErrorWithFileAndLine() throws Exception {
        Map<String, String> files = PolicyFiles.defaults();
        files.put(PolicyFiles.RECLAMATION, files.get(PolicyFiles.RECLAMATION).replace("heartbeatAgeSeconds > 300", "heartbeatAgeSeconds > 240"));
        Path good = zip(files);
        files.put("tiering/broken.drl", "package io.gpupool.rules.tiering;\n\nrule \"Half a rule\"\nwhen\n    DeviceFact( \nthen\nend\n");
        Path broken = zip(files);

        browser.signIn(ADMIN);
        browser.open("policy");
        browser.waitFor(By.id("zip-file")).sendKeys(good.toString());
        browser.driver().findElement(By.id("zip-message")).sendKeys("Silent leases reclaimed after four minutes");
        browser.driver().findElement(By.cssSelector("#zip-form button[type=submit]")).click();
        assertThat(browser.text(By.cssSelector("#upload-result .notice"))).contains("Uploaded as v" + latestVersion());

        browser.driver().findElement(By.id("zip-file")).sendKeys(broken.toString());
        browser.driver().findElement(By.id("zip-message")).clear();
        browser.driver().findElement(By.id("zip-message")).sendKeys("A broken file");
        browser.driver().findElement(By.cssSelector("#zip-form button[type=submit]")).click();
        String problem = browser.text(By.cssSelector("#upload-result .problem"));
        assertThat(problem).contains("422", "tiering/broken.drl:");
    }

    private int latestVersion() {
        JsonNode versions = api.get("/api/v1/policies", ADMIN).body().get("versions");
        return versions.get(versions.size() - 1).get("version").asInt();
    }

    private static Path zip(Map<String, String> files) throws IOException {
        Path zip = Files.createTempFile("gpupool-policy-", ".zip");
        zip.toFile().deleteOnExit();
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(zip))) {
            for (Map.Entry<String, String> f : files.entrySet()) {
                out.putNextEntry(new ZipEntry("my-policy/" + f.getKey()));
                out.write(f.getValue().getBytes(StandardCharsets.UTF_8));
                out.closeEntry();
            }
        }
        return zip;
    }

    @Test
    void aViewerReadsThePolicyAndLeasesButIsGivenNoControlThatWouldChangeThem() {
        Reply viewer = api.post("/api/v1/tokens", Map.of("name", "finance-console", "role", "viewer"), ADMIN);
        place("search", "inference", 1, null);

        browser.signIn(viewer.body().get("secret").asText());
        browser.open("policy");
        assertThat(browser.text(By.id("history-verify"))).startsWith("Hash chain intact");
        assertThat(browser.all(By.cssSelector("#edit-form, #dry-run-candidate, button.activate, button.rollback"))).isEmpty();
        browser.open("leases");
        assertThat(browser.text(By.id("lease-table"))).contains("search");
        assertThat(browser.all(By.cssSelector("button[data-act]"))).isEmpty();
    }

    @Test
    void aRejectedTokenShowsTheServicesProblemMessageOnTheSignInForm() {
        browser.driver().get(server.getURL() + "/console/");
        browser.script("sessionStorage.clear()");
        browser.driver().navigate().refresh();
        browser.waitFor(By.id("token")).sendKeys("not-a-token-of-ours", Keys.ENTER);

        assertThat(browser.text(By.cssSelector("#signin .problem"))).contains("401", "Unknown or revoked token");
    }

    @Test
    void onANarrowWindowTheFleetViewScrollsItsTablesNotThePage() {
        browser.signIn(ADMIN);
        browser.driver().manage().window().setSize(new Dimension(420, 900));
        browser.open("fleet");
        browser.waitFor(By.id("usage-table"));
        Long overflow = browser.script("return document.documentElement.scrollWidth - document.documentElement.clientWidth;");
        assertThat(overflow).isLessThanOrEqualTo(0L);
        browser.screenshot("fleet-narrow");
    }
}
