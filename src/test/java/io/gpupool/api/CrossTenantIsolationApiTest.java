package io.gpupool.api;

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
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * A tenant never sees nor touches another tenant's data, whichever way it asks: the lists it reads
 * leave the others' entries out (while an admin's hold them, so the check is not vacuous), asking
 * by another tenant's id is a 403 that names no owner, a write on another tenant's request changes
 * nothing, and an Idempotency-Key is the asking tenant's own. Vision (a team of acme) owns a
 * placed lease and a queued request; other-org is another organisation, speech vision's sibling.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CrossTenantIsolationApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    Api api;
    String vision;
    String speech;
    String acme;
    String otherOrg;
    String placedRequest;
    String lease;
    String queuedRequest;

    @BeforeAll
    void visionHoldsALeaseAndWaitsForMore() {
        api = new Api(client);
        SmallFleet.load(api);
        vision = SmallFleet.tenantToken(api, "vision");
        speech = SmallFleet.tenantToken(api, "speech");
        acme = SmallFleet.tenantToken(api, "acme");
        otherOrg = SmallFleet.tenantToken(api, "other-org");

        Reply placed = api.post("/api/v1/requests", request("vision", "training", 8, "ttlSeconds", 7200), vision,
                "Idempotency-Key", "nightly-build");
        assertThat(placed.status()).as(placed.body().toString()).isEqualTo(201);
        placedRequest = placed.body().at("/request/id").asText();
        lease = placed.body().at("/lease/id").asText();

        Reply queued = api.post("/api/v1/requests", request("vision", "training", 16, "gangSize", 2), vision);
        assertThat(queued.status()).as(queued.body().toString()).isEqualTo(202);
        assertThat(queued.body().at("/request/state").asText()).isEqualTo("QUEUED");
        queuedRequest = queued.body().at("/request/id").asText();
    }

    /** Every tenant id an answer names, wherever it names one. */
    private static List<String> tenantsNamedIn(JsonNode body) {
        List<String> named = new ArrayList<>();
        named.addAll(body.findValuesAsText("tenantId"));
        body.findValues("tenant").forEach(v -> {
            if (v.isTextual()) {
                named.add(v.asText());
            }
        });
        return named;
    }

    /** The tenants an answer to {@code url} names: the records themselves for the tenant list. */
    private static List<String> tenantsNamedIn(String url, JsonNode body) {
        List<String> named = tenantsNamedIn(body);
        if (url.equals("/api/v1/tenants")) {
            named.addAll(body.findValuesAsText("id"));
        }
        return named;
    }

    private static String thisMonth() {
        return YearMonth.now(ZoneOffset.UTC).toString();
    }

    static Stream<Arguments> lists() {
        return Stream.of(
                arguments("the leases", "/api/v1/leases", true),
                arguments("the active leases", "/api/v1/leases?state=ACTIVE", true),
                arguments("the queues", "/api/v1/queues", true),
                arguments("the decision log", "/api/v1/decisions", true),
                arguments("the decisions on vision's request", "/api/v1/decisions?request=$REQUEST", true),
                arguments("the decisions on vision's lease", "/api/v1/decisions?lease=$LEASE", true),
                arguments("the tenants", "/api/v1/tenants", true),
                arguments("the quotas", "/api/v1/quotas", true),
                arguments("the quotas of the training pool", "/api/v1/quotas?pool=training", true),
                arguments("the usage report by tenant", "/api/v1/reports/usage?groupBy=tenant", true),
                arguments("the cost report by tenant", "/api/v1/reports/cost?groupBy=tenant", true),
                arguments("the queue report by tenant", "/api/v1/reports/queues?groupBy=tenant", true),
                arguments("the utilisation report by tenant", "/api/v1/reports/utilisation?groupBy=tenant", true),
                arguments("the reclamation report by tenant", "/api/v1/reports/reclamation?groupBy=tenant", false));
    }

    @ParameterizedTest(name = "{0}: another organisation's token sees none of vision's entries")
    @MethodSource("lists")
    void anotherOrganisationsTokenSeesNoneOfVisionsEntriesInAList(String what, String path, boolean adminSeesVision) {
        String url = path.replace("$REQUEST", placedRequest).replace("$LEASE", lease);

        Reply theirs = api.get(url, otherOrg);

        assertThat(theirs.status()).as(theirs.body().toString()).isEqualTo(200);
        assertThat(tenantsNamedIn(url, theirs.body())).as(what).doesNotContain("vision", "acme", "speech");
        assertThat(theirs.body().toString()).as(what).doesNotContain(placedRequest).doesNotContain(lease).doesNotContain(queuedRequest);
        if (adminSeesVision) {
            assertThat(tenantsNamedIn(url, api.get(url, ADMIN).body())).as("an admin's " + what).contains("vision");
        }
    }

    @ParameterizedTest(name = "{0}: a sibling team's token sees none of vision's entries")
    @MethodSource("lists")
    void aSiblingTeamsTokenSeesNoneOfVisionsEntriesInAList(String what, String path, boolean adminSeesVision) {
        String url = path.replace("$REQUEST", placedRequest).replace("$LEASE", lease);

        Reply siblings = api.get(url, speech);

        assertThat(siblings.status()).as(siblings.body().toString()).isEqualTo(200);
        assertThat(tenantsNamedIn(url, siblings.body())).as(what).doesNotContain("vision");
        assertThat(siblings.body().toString()).as(what).doesNotContain(placedRequest).doesNotContain(lease).doesNotContain(queuedRequest);
    }

    @Test
    void theOrganisationAboveSeesItsTeamsEntriesInTheSameLists() {
        assertThat(api.get("/api/v1/leases", acme).body().findValuesAsText("id")).contains(lease);
        assertThat(api.get("/api/v1/queues", acme).body().toString()).contains(queuedRequest);
        assertThat(api.get("/api/v1/decisions?request=" + placedRequest, acme).body()).isNotEmpty();
        assertThat(tenantsNamedIn(api.get("/api/v1/reports/usage?groupBy=tenant", acme).body())).contains("vision");
    }

    @Test
    void aQueuedRequestKeepsItsPlaceAmongOthersButIsNotShownToThem() {
        Reply speechWaits = api.post("/api/v1/requests", request("speech", "training", 16, "gangSize", 2), speech);
        assertThat(speechWaits.status()).as(speechWaits.body().toString()).isEqualTo(202);
        try {
            JsonNode seenBySpeech = api.get("/api/v1/queues", speech).body().path("training");

            assertThat(seenBySpeech).hasSize(1);
            assertThat(seenBySpeech.get(0).at("/request/tenantId").asText()).isEqualTo("speech");
            assertThat(seenBySpeech.get(0).get("position").asInt()).as("vision's request waits ahead, unseen").isEqualTo(2);
        } finally {
            api.delete("/api/v1/requests/" + speechWaits.body().at("/request/id").asText(), speech);
        }
    }

    static Stream<Arguments> readsByAnotherTenantsId() {
        return Stream.of(
                arguments("vision's request", "/api/v1/requests/$REQUEST"),
                arguments("the explanation of vision's request", "/api/v1/requests/$REQUEST/explain"),
                arguments("vision's queued request", "/api/v1/requests/$QUEUED"),
                arguments("vision's lease", "/api/v1/leases/$LEASE"),
                arguments("vision's leases", "/api/v1/leases?tenant=vision"),
                arguments("vision's tenant record", "/api/v1/tenants/vision"),
                arguments("vision's quotas", "/api/v1/quotas?tenant=vision"),
                arguments("vision's decisions", "/api/v1/decisions?tenant=vision"),
                arguments("vision's webhooks", "/api/v1/webhooks?tenant=vision"),
                arguments("vision's monthly statement", "/api/v1/reports/statement?tenant=vision&month=$MONTH"));
    }

    @ParameterizedTest(name = "asking for {0} by id is forbidden without naming the owner")
    @MethodSource("readsByAnotherTenantsId")
    void askingForAnotherTenantsDataByIdIsForbiddenWithoutNamingTheOwner(String what, String path) {
        String url = path.replace("$REQUEST", placedRequest).replace("$QUEUED", queuedRequest).replace("$LEASE", lease)
                .replace("$MONTH", thisMonth());

        for (String token : List.of(otherOrg, speech)) {
            Reply reply = api.get(url, token);

            assertThat(reply.status()).as(what + ": " + reply.body()).isEqualTo(403);
            assertThat(reply.contentType()).startsWith("application/problem+json");
            assertThat(reply.detail()).contains("not yours").doesNotContain("'vision'").doesNotContain("acme");
        }
        assertThat(api.get(url, vision).status()).as("vision itself reads " + what).isEqualTo(200);
    }

    @Test
    void noTeamReadsItsOrganisationsStatementNorAnotherOrganisationTheirs() {
        String url = "/api/v1/reports/statement?tenant=acme&month=" + thisMonth();

        for (String token : List.of(vision, otherOrg)) {
            Reply reply = api.get(url, token);
            assertThat(reply.status()).isEqualTo(403);
            assertThat(reply.detail()).contains("not yours").doesNotContain("acme");
        }
        assertThat(api.get(url, acme).status()).isEqualTo(200);
    }

    @Test
    void anotherTenantCannotCancelAQueuedRequestAndItKeepsWaiting() {
        String before = api.get("/api/v1/requests/" + queuedRequest, ADMIN).body().toString();

        Reply cancel = api.delete("/api/v1/requests/" + queuedRequest, otherOrg);

        assertThat(cancel.status()).isEqualTo(403);
        assertThat(cancel.detail()).contains("not yours");
        JsonNode after = api.get("/api/v1/requests/" + queuedRequest, ADMIN).body();
        assertThat(after.at("/request/state").asText()).isEqualTo("QUEUED");
        assertThat(after.toString()).isEqualTo(before);
    }

    @Test
    void aTenantCannotAskForGpusInAnotherTenantsNameAndNothingIsQueued() {
        String queuesBefore = api.get("/api/v1/queues", ADMIN).body().toString();
        int leasesBefore = api.get("/api/v1/leases?tenant=vision", ADMIN).body().size();

        Reply reply = api.post("/api/v1/requests", request("vision", "dev", 1), otherOrg);

        assertThat(reply.status()).isEqualTo(403);
        assertThat(reply.detail()).contains("not yours").doesNotContain("'vision'");
        assertThat(api.get("/api/v1/queues", ADMIN).body().toString()).isEqualTo(queuesBefore);
        assertThat(api.get("/api/v1/leases?tenant=vision", ADMIN).body()).hasSize(leasesBefore);
    }

    @Test
    void anIdempotencyKeyIsTheAskingTenantsOwnAndNeverAnswersWithAnotherTenantsRequest() {
        Reply theirs = api.post("/api/v1/requests", request("other-org", "dev", 1), otherOrg, "Idempotency-Key", "nightly-build");

        assertThat(theirs.status()).as(theirs.body().toString()).isIn(201, 202, 422);
        assertThat(theirs.body().toString()).doesNotContain(placedRequest).doesNotContain(lease);
        if (theirs.status() != 422) {
            assertThat(theirs.body().at("/request/tenantId").asText()).isEqualTo("other-org");
            api.delete("/api/v1/requests/" + theirs.body().at("/request/id").asText(), otherOrg);
        }
        Reply replayedByVision = api.post("/api/v1/requests", request("vision", "training", 8, "ttlSeconds", 7200), vision,
                "Idempotency-Key", "nightly-build");
        assertThat(replayedByVision.body().at("/request/id").asText()).as("vision's key still answers vision's request")
                .isEqualTo(placedRequest);
    }

    @Test
    void replayingAnotherTenantsKeyInTheirNameIsForbiddenAndShowsNothingOfTheirRequest() {
        Reply reply = api.post("/api/v1/requests", request("vision", "training", 8, "ttlSeconds", 7200), otherOrg,
                "Idempotency-Key", "nightly-build");

        assertThat(reply.status()).isEqualTo(403);
        assertThat(reply.body().toString()).doesNotContain(placedRequest).doesNotContain(lease);
    }

    @Test
    void aTeamCannotReadItsOrganisationsRecordNorItsSiblingsQuotas() {
        assertThat(api.get("/api/v1/tenants/acme", vision).status()).isEqualTo(403);
        assertThat(api.get("/api/v1/quotas?tenant=speech", vision).status()).isEqualTo(403);
        assertThat(api.get("/api/v1/tenants", vision).body().findValuesAsText("id")).containsExactly("vision");
        assertThat(tenantsNamedIn(api.get("/api/v1/quotas", vision).body())).containsOnly("vision");
    }

    @Test
    void aTenantsTokenListsNoTokensAndIssuesNone() {
        int tokensBefore = api.get("/api/v1/tokens", ADMIN).body().size();

        assertThat(api.get("/api/v1/tokens", vision).status()).isEqualTo(403);
        assertThat(api.post("/api/v1/tokens", Map.of("name", "sneaky", "role", "tenant", "tenantId", "vision"), vision).status())
                .isEqualTo(403);
        assertThat(api.get("/api/v1/tokens", ADMIN).body()).hasSize(tokensBefore);
    }
}
