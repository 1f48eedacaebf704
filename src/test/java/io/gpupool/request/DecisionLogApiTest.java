package io.gpupool.request;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The decision log is read in pages, oldest first, by cursor: following the Link headers visits
 * every entry once, whatever the page size, and a tenant's pages hold only its own entries.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DecisionLogApiTest {
    private static final String SINCE = "since=2000-01-01T00:00:00Z";
    private static final Pattern NEXT = Pattern.compile("<([^>]+)>; rel=\"next\"");
    @Inject
    @Client("/")
    HttpClient client;
    Api api;
    String vision;
    String speech;
    String visionRequest;
    String visionLease;

    @BeforeAll
    void allocateAndReleaseForTwoTenants() {
        api = new Api(client);
        SmallFleet.load(api);
        vision = SmallFleet.tenantToken(api, "vision");
        speech = SmallFleet.tenantToken(api, "speech");
        for (int i = 0; i < 3; i++) {
            for (String[] who : List.of(new String[]{"vision", vision}, new String[]{"speech", speech})) {
                Reply placed = api.post("/api/v1/requests", request(who[0], "dev", 1, "milliPerGpu", 250), who[1]);
                assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
                String lease = placed.body().at("/lease/id").asText();
                assertThat(api.post("/api/v1/leases/" + lease + "/release", Map.of(), who[1]).status()).isEqualTo(200);
                if (who[0].equals("vision")) {
                    visionRequest = placed.body().at("/request/id").asText();
                    visionLease = lease;
                }
            }
        }
    }

    @ParameterizedTest(name = "pages of {0} visit every entry once, in log order")
    @CsvSource({"1", "3", "5", "1000"})
    void followingTheNextLinksVisitsEveryEntryOnceInLogOrder(int limit) {
        List<Long> all = ids(api.get("/api/v1/decisions?" + SINCE, ADMIN).body());
        assertThat(all).as("allocate and release, twice three times, in log order").hasSizeGreaterThanOrEqualTo(12).isSorted();

        List<Long> paged = followPages("/api/v1/decisions?" + SINCE + "&limit=" + limit, ADMIN);

        assertThat(paged).isEqualTo(all);
    }

    @Test
    void withoutSinceThePagesKeepTheFirstPagesHourWindow() {
        List<Long> all = ids(api.get("/api/v1/decisions?" + SINCE, ADMIN).body());
        Reply first = api.get("/api/v1/decisions?limit=2", ADMIN);
        assertThat(first.link()).as("the default window, written into the next link").contains("since=");

        List<Long> paged = followPages("/api/v1/decisions?limit=2", ADMIN);

        assertThat(paged).as("every entry is from this test's last hour").isEqualTo(all);
    }

    @Test
    void aTenantsPagesHoldOnlyItsOwnEntriesAndStillReachTheEnd() {
        List<Long> own = new ArrayList<>();
        for (JsonNode d : api.get("/api/v1/decisions?" + SINCE, ADMIN).body()) {
            if ("vision".equals(d.path("tenantId").asText())) {
                own.add(d.get("id").asLong());
            }
        }

        List<Long> paged = followPages("/api/v1/decisions?" + SINCE + "&limit=2", vision);

        assertThat(paged).isEqualTo(own).isNotEmpty();
    }

    @Test
    void aRequestAndALeaseTogetherGiveTheEntriesOfTheRequestOnThatLease() {
        JsonNode both = api.get("/api/v1/decisions?request=" + visionRequest + "&lease=" + visionLease, vision).body();
        JsonNode ofRequest = api.get("/api/v1/decisions?request=" + visionRequest, vision).body();
        JsonNode ofOtherLease = api.get("/api/v1/decisions?request=" + visionRequest + "&lease=not-its-lease", vision).body();

        assertThat(both.findValuesAsText("action")).containsExactly("ADMIT", "RELEASE");
        assertThat(both.findValuesAsText("leaseId")).containsOnly(visionLease);
        assertThat(ofRequest.size()).isGreaterThanOrEqualTo(both.size());
        assertThat(ofOtherLease.size()).isZero();
    }

    @ParameterizedTest(name = "{0} is refused with 400")
    @CsvSource({"limit=0, limit must be between 1 and 1000", "limit=1001, limit must be between 1 and 1000",
            "after=-1, after: the id of a decision log entry"})
    void aBadPageIsRefused(String query, String message) {
        Reply reply = api.get("/api/v1/decisions?" + SINCE + "&" + query, ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.detail()).contains(message);
    }

    private List<Long> followPages(String first, String token) {
        List<Long> seen = new ArrayList<>();
        String next = first;
        for (int pages = 0; next != null; pages++) {
            assertThat(pages).as("pages followed").isLessThan(100);
            Reply page = api.get(next, token);
            assertThat(page.status()).isEqualTo(200);
            seen.addAll(ids(page.body()));
            Matcher link = page.link() == null ? null : NEXT.matcher(page.link());
            next = link != null && link.find() ? link.group(1) : null;
        }
        return seen;
    }

    private static List<Long> ids(JsonNode entries) {
        List<Long> ids = new ArrayList<>();
        entries.forEach(d -> ids.add(d.get("id").asLong()));
        return ids;
    }
}
