package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.testing.Api;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.FleetLoaded;
import io.gpupool.testing.WebhookReceiver;
import io.micronaut.context.annotation.Property;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

/** `gpupool webhooks …` against a running test server: create, list, the delivery log, redeliver, delete. */
@MicronautTest(transactional = false)
@Property(name = "gpupool.webhooks.enabled", value = "true")
@DatabaseTest
class WebhookCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

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
    void aWebhookIsCreatedListedFollowedThroughItsDeliveriesAndDeleted() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver()) {
            CliRun.Result created = cli.run("webhooks", "create", "--tenant", "nlp",
                    "--events", "placed,notice", receiver.url(), "-o", "json");
            assertThat(created.exitCode()).as(created.err()).isZero();
            JsonNode hook = JSON.readTree(created.out());
            String id = hook.at("/webhook/id").asText();
            assertThat(hook.get("secret").asText()).startsWith("whsec_");

            CliRun.Result list = cli.run("webhooks", "list", "--tenant", "nlp");
            assertThat(list.out().split("\n")[0]).startsWith("ID").contains("TENANT", "EVENTS", "URL");
            assertThat(list.out()).contains(id, "placed,notice", receiver.url());

            assertThat(api.post("/api/v1/requests", Map.of("tenant", "nlp", "kind", "dev", "gpus", 1), ADMIN).status()).isEqualTo(201);
            assertThat(receiver.awaitDeliveries(1, Duration.ofSeconds(10))).hasSize(1);
            String delivery = receiver.received().get(0).delivery();
            CliRun.Result log = pollUntil(() -> cli.run("webhooks", "deliveries", id), r -> r.out().contains("DELIVERED"));
            assertThat(log.out().split("\n")[0]).startsWith("DELIVERY").contains("EVENT", "STATE", "ATTEMPTS", "LAST STATUS");
            assertThat(log.out()).contains(delivery, "placed", "DELIVERED", "200");

            CliRun.Result again = cli.run("webhooks", "redeliver", id, delivery);
            assertThat(again.exitCode()).as(again.err()).isZero();
            assertThat(again.out()).contains("delivery " + delivery + " is PENDING");
            assertThat(receiver.await(2, Duration.ofSeconds(10))).as("the first POST and the redelivery, one delivery id").hasSizeGreaterThanOrEqualTo(2);

            CliRun.Result deleted = cli.run("webhooks", "delete", id);
            assertThat(deleted.exitCode()).isZero();
            assertThat(deleted.out()).contains("deleted webhook " + id);
            assertThat(cli.run("webhooks", "list", "--tenant", "nlp").out()).doesNotContain(id);
        }
    }

    @Test
    void aRefusedWebhookExitsWithTheServersMessage() {
        CliRun.Result result = cli.run("webhooks", "create", "--tenant", "nlp", "--events", "placed", "ftp://x.example.com/");

        assertThat(result.exitCode()).isEqualTo(CliFailure.REFUSED);
        assertThat(result.err()).contains("400").contains("only http and https");
    }

    @Test
    void webhooksWithoutASubcommandIsAUsageError() {
        assertThat(cli.run("webhooks").exitCode()).isEqualTo(CliFailure.USAGE);
        assertThat(cli.run("webhooks", "create", "--tenant", "nlp").exitCode()).as("the URL and --events missing")
                .isEqualTo(CliFailure.USAGE);
    }

    private static CliRun.Result pollUntil(java.util.function.Supplier<CliRun.Result> run,
                                           java.util.function.Predicate<CliRun.Result> done) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        CliRun.Result last = run.get();
        while (!done.test(last) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            last = run.get();
        }
        return last;
    }
}
