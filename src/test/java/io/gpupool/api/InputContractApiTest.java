package io.gpupool.api;

import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MediaType;
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

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * What the database would refuse is refused first, as a 400 problem, with nothing written: texts
 * longer than their column, lone surrogates, one-element arrays for scalars. Answers never echo more
 * than a short excerpt of the input, and a 403 never names the tenant that owns what was asked for.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InputContractApiTest {
    private static final String MEGABYTE = "x".repeat(1 << 20);

    @Inject
    @Client("/")
    HttpClient client;
    Api api;
    String vision;
    String otherOrg;

    @BeforeAll
    void loadFleet() {
        api = new Api(client);
        SmallFleet.load(api);
        vision = SmallFleet.tenantToken(api, "vision");
        otherOrg = SmallFleet.tenantToken(api, "other-org");
    }

    private Reply json(String method, String path, String body) {
        return api.send(HttpRequest.create(io.micronaut.http.HttpMethod.valueOf(method), path).body(body)
                .contentType(MediaType.APPLICATION_JSON_TYPE), ADMIN);
    }

    private String quotas() {
        return api.get("/api/v1/quotas", ADMIN).body().toString();
    }

    private static Map<String, Object> quota(String model) {
        Map<String, Object> q = new HashMap<>(Map.of("tenant", "vision", "pool", "dev", "guaranteedGpus", 0));
        q.put("model", model);
        return q;
    }

    @Test
    void aQuotaModelLongerThanItsColumnIsRefusedWith400AndNothingIsWritten() {
        String before = quotas();

        Reply reply = api.put("/api/v1/quotas", quota("m".repeat(129)), ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(400);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.body().toString()).contains("model: at most 128 characters, got 129");
        assertThat(quotas()).isEqualTo(before);
    }

    @Test
    void aQuotaModelOfExactlyItsColumnWidthIsStored() {
        Reply reply = api.put("/api/v1/quotas", quota("m".repeat(128)), ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        assertThat(api.delete("/api/v1/quotas/vision/dev/" + "m".repeat(128), ADMIN).status()).isEqualTo(200);
    }

    static Stream<Arguments> overlongTexts() {
        return Stream.of(
                arguments("a tenant name", "POST", "/api/v1/tenants", Map.of("id", "t-long-name", "name", "n".repeat(257)),
                        "name: at most 256 characters"),
                arguments("a tenant cost center", "POST", "/api/v1/tenants", Map.of("id", "t-long-cc", "costCenter", "c".repeat(129)),
                        "costCenter: at most 128 characters"),
                arguments("a pool name", "POST", "/api/v1/pools", Map.of("id", "p-long-name", "tier", "DEV_SHARED", "name", "n".repeat(257)),
                        "name: at most 256 characters"),
                arguments("a pool placement strategy", "POST", "/api/v1/pools",
                        Map.of("id", "p-long-strategy", "tier", "DEV_SHARED", "placementStrategy", "s".repeat(65)),
                        "placementStrategy: at most 64 characters"),
                arguments("a pool description", "POST", "/api/v1/pools",
                        Map.of("id", "p-long-description", "tier", "DEV_SHARED", "description", "d".repeat(4097)),
                        "description: at most 4096 characters"),
                arguments("a token name", "POST", "/api/v1/tokens", Map.of("name", "n".repeat(101), "role", "viewer"),
                        "name: at most 100 characters"),
                arguments("a request's tenant", "POST", "/api/v1/requests", request("v".repeat(129), "dev", 1),
                        "tenant: at most 128 characters"),
                arguments("a policy change message", "POST", "/api/v1/policies/1/activate", Map.of("message", "m".repeat(4097)),
                        "message: at most 4096 characters"));
    }

    @ParameterizedTest(name = "{0} longer than its column is refused with 400")
    @MethodSource("overlongTexts")
    void aTextLongerThanItsColumnIsRefusedWith400(String what, String method, String path, Map<String, Object> body,
                                                 String message) {
        Reply reply = api.send(HttpRequest.create(io.micronaut.http.HttpMethod.valueOf(method), path).body(body), ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(400);
        assertThat(reply.body().toString()).contains(message);
        assertThat(api.get("/api/v1/tenants", ADMIN).body().toString()).doesNotContain("t-long");
        assertThat(api.get("/api/v1/pools", ADMIN).body().toString()).doesNotContain("p-long");
    }

    @Test
    void aFleetDocumentWithASiteNameLongerThanItsColumnIsRefusedWith400() {
        Reply reply = api.postText("/api/v1/fleet", "sites: [{id: far, name: " + "n".repeat(257) + "}]", "application/yaml", ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(400);
        assertThat(reply.body().toString()).contains("sites[0].name: at most 256 characters");
        assertThat(api.get("/api/v1/sites", ADMIN).body().toString()).doesNotContain("far");
    }

    @Test
    void aLoneSurrogateInAQuotaModelIsRefusedAndNothingIsStored() {
        String before = quotas();

        Reply reply = json("PUT", "/api/v1/quotas", "{\"tenant\":\"vision\",\"pool\":\"dev\",\"model\":\"\\ud800x\",\"guaranteedGpus\":0}");

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(400);
        assertThat(reply.detail()).contains("lone surrogate");
        assertThat(quotas()).isEqualTo(before);
    }

    @Test
    void aLoneSurrogateIsRefusedInEveryBodyIncludingListsMapsAndFleetDocuments() {
        assertThat(json("POST", "/api/v1/requests", "{\"tenant\":\"vision\",\"kind\":\"dev\",\"gpus\":1,\"models\":[\"A\\udc00\"]}")
                .status()).isEqualTo(400);
        assertThat(json("POST", "/api/v1/tenants", "{\"id\":\"surrogate\",\"name\":\"\\udbff\"}").status()).isEqualTo(400);
        assertThat(json("POST", "/api/v1/policies", "{\"message\":\"m\",\"files\":{\"a\\ud800.drl\":\"x\"}}").status())
                .isEqualTo(400);
        assertThat(api.postText("/api/v1/fleet", "{\"sites\":[{\"id\":\"s1\",\"name\":\"\\ud800\"}]}", "application/json", ADMIN)
                .status()).isEqualTo(400);
        assertThat(api.get("/api/v1/tenants", ADMIN).body().toString()).doesNotContain("surrogate");
    }

    @Test
    void aOneElementArrayIsNotAcceptedForAScalar() {
        String before = quotas();

        Reply quota = json("PUT", "/api/v1/quotas", "{\"tenant\":[\"vision\"],\"pool\":\"dev\",\"guaranteedGpus\":0}");
        Reply req = json("POST", "/api/v1/requests", "{\"tenant\":[\"vision\"],\"kind\":\"dev\",\"gpus\":[1]}");

        assertThat(quota.status()).as(quota.body().toString()).isEqualTo(400);
        assertThat(req.status()).as(req.body().toString()).isEqualTo(400);
        assertThat(quotas()).isEqualTo(before);
    }

    @Test
    void aBareValueIsNotAcceptedForAList() {
        Reply reply = json("POST", "/api/v1/requests", "{\"tenant\":\"vision\",\"kind\":\"dev\",\"gpus\":1,\"models\":\"L40S-48G\"}");

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(400);
    }

    static Stream<Arguments> megabyteIds() {
        return Stream.of(
                arguments("a quota's tenant", "PUT", "/api/v1/quotas", Map.of("tenant", MEGABYTE, "pool", "dev")),
                arguments("a pool id", "POST", "/api/v1/pools", Map.of("id", MEGABYTE, "tier", "DEV_SHARED")),
                arguments("a tenant token's tenant", "POST", "/api/v1/tokens", Map.of("name", "t", "role", "tenant", "tenantId", MEGABYTE)),
                arguments("a request's tenant", "POST", "/api/v1/requests", request(MEGABYTE, "dev", 1)),
                arguments("a request's model", "POST", "/api/v1/requests", request("vision", "dev", 1, "models", List.of(MEGABYTE))));
    }

    @ParameterizedTest(name = "{0} of a megabyte gets a short answer")
    @MethodSource("megabyteIds")
    void aMegabyteIdGetsAShortAnswer(String what, String method, String path, Map<String, Object> body) {
        Reply reply = api.send(HttpRequest.create(io.micronaut.http.HttpMethod.valueOf(method), path).body(body), ADMIN);

        assertThat(reply.status()).isBetween(400, 499);
        assertThat(reply.body().toString().length()).as(what).isLessThan(2048);
    }

    @Test
    void aControlCharacterInAnEchoedIdIsEscaped() {
        Reply reply = api.put("/api/v1/quotas", Map.of("tenant", "no\u0007body\nhere", "pool", "dev"), ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.body().toString()).contains("no\\\\u0007body\\\\u000ahere");
    }

    @Test
    void aForbiddenAnswerNeverNamesTheTenantThatOwnsTheId() {
        Reply placed = api.post("/api/v1/requests", request("vision", "dev", 1), vision);
        String request = placed.body().at("/request/id").asText();
        String lease = placed.body().at("/lease/id").asText();

        for (String path : List.of("/api/v1/requests/" + request, "/api/v1/leases/" + lease, "/api/v1/requests/" + request + "/explain")) {
            Reply reply = api.get(path, otherOrg);
            assertThat(reply.status()).as(path).isEqualTo(403);
            assertThat(reply.detail()).as(path).contains("not yours").doesNotContain("vision").doesNotContain("acme");
        }
        api.post("/api/v1/leases/" + lease + "/release", Map.of(), vision);
    }
}
