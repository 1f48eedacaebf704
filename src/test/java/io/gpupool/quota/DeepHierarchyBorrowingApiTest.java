package io.gpupool.quota;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.request.scheduling.LifecycleScheduler;
import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.FleetLoaded;
import io.gpupool.testing.SmallFleet;
import io.micronaut.context.annotation.Property;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three levels on the shipped fleet with its lab extension (one 8×H100 node guaranteed to
 * research): research → departments language (4) and perception (4) → team translation (2, in
 * language). The team borrows its department's idle guarantee first, then its organisation's, and
 * perception's lending limit keeps perception's idle GPUs from it. Before, teams borrowed only from
 * the root, whatever the levels between, and no lending limit below the root counted. The scheduler
 * runs only when the test says, so the queued request waits until the lending limit changes.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@Property(name = "gpupool.scheduler.react-to-commits", value = "false")
@DatabaseTest
class DeepHierarchyBorrowingApiTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    LifecycleScheduler scheduler;

    @Test
    void aThreeLevelTeamBorrowsItsDepartmentsIdleGuaranteeBeforeItsOrgsAndAMiddleLevelLendingLimitStopsIt() throws Exception {
        Api api = new Api(client);
        FleetLoaded.ensure(api);
        assertThat(api.postText("/api/v1/fleet", Files.readString(Path.of("policies-examples/fleet/lab-extension.yaml")),
                "application/yaml", ADMIN).status()).isEqualTo(200);
        for (String[] t : new String[][]{{"language", "research"}, {"perception", "research"}, {"translation", "language"}}) {
            assertThat(api.post("/api/v1/tenants", Map.of("id", t[0], "parent", t[1]), ADMIN).status()).isEqualTo(201);
        }
        quota("language", 4, 0, 4);
        quota("perception", 4, 0, 0);
        quota("translation", 2, 8, 2);
        String translation = SmallFleet.tenantToken(api, "translation");

        // 4 GPUs: 2 beyond its own guarantee, which language (4 idle) covers, though research has 8 idle too
        assertThat(lenderInLab(api, 4)).isEqualTo("language");
        Reply first = api.post("/api/v1/requests", request("translation", "training", 4, "pool", "lab"), translation);
        assertThat(first.status()).as(first.body().toString()).isEqualTo(201);
        assertThat(first.body().at("/lease/borrowed").asBoolean()).isTrue();
        assertThat(explain(api, first, translation)).contains("Team borrows the idle guarantee of its nearest ancestor that has enough");

        // 4 more: language is used up; research has 4 idle, but they are perception's, which lends none
        Reply second = api.post("/api/v1/requests", request("translation", "training", 4, "pool", "lab"), translation);
        assertThat(second.status()).as(second.body().toString()).isEqualTo(202);
        assertThat(second.body().at("/request/whyPending/blockedBy").asText()).isEqualTo("QUOTA");
        assertThat(second.body().at("/request/whyPending/reasonCode").asText()).isEqualTo("NO_LENDABLE_CAPACITY");

        // perception lends its idle guarantee: the queued request borrows it from research, two levels up
        quota("perception", 4, 0, 4);
        assertThat(lenderInLab(api, 4)).isEqualTo("research");
        scheduler.runOnce();
        Reply placed = api.get("/api/v1/requests/" + second.body().at("/request/id").asText(), translation);
        assertThat(placed.body().at("/request/state").asText()).as(placed.body().toString()).isEqualTo("PLACED");
    }

    /** Whom the active policy names as lender for a request of translation in the lab pool (a dry-run: nothing changes). */
    private static String lenderInLab(Api api, int gpus) {
        Reply dryRun = api.post("/api/v1/policies/dry-run", Map.of("candidateVersion", 1, "requests",
                List.of(Map.of("id", "probe", "tenant", "translation", "kind", "TRAINING", "gpus", gpus))), ADMIN);
        assertThat(dryRun.status()).as(dryRun.body().toString()).isEqualTo(200);
        for (JsonNode d : dryRun.body().get("activeDecisions")) {
            if (d.path("type").asText().equals("QuotaVerdict") && d.at("/decision/requestId").asText().equals("probe")
                    && d.at("/decision/poolId").asText().equals("lab")) {
                return d.at("/decision/lenderId").asText(null);
            }
        }
        throw new AssertionError("no quota verdict in lab: " + dryRun.body().get("activeDecisions"));
    }

    private void quota(String tenant, int guaranteed, int borrowing, int lending) {
        Reply reply = new Api(client).put("/api/v1/quotas", Map.of("tenant", tenant, "pool", "lab", "guaranteedGpus", guaranteed,
                "borrowingLimit", borrowing, "lendingLimit", lending), ADMIN);
        assertThat(reply.status()).as(reply.body().toString()).isIn(200, 201);
    }

    private static String explain(Api api, Reply placed, String token) {
        return api.get("/api/v1/requests/" + placed.body().at("/request/id").asText() + "/explain", token).body().toString();
    }
}
