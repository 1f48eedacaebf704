package io.gpupool.webhook;

import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.request.AllocationService;
import io.gpupool.request.NewRequest;
import io.gpupool.store.row.WebhookDeliveryRepository;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.TestDatabase;
import io.gpupool.testing.WebhookReceiver;
import io.gpupool.testing.WebhookReceiver.Received;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Deliveries are durable: an event committed just before the process died is derived and sent
 * after the restart, and a delivery that was waiting for its next attempt is sent then too.
 */
@DatabaseTest
class WebhookRestartTest {
    private static final Caller ADMIN = new Caller("test", "test", Role.ADMIN, null);
    private static final Duration WITHIN = Duration.ofSeconds(15);

    private static Map<String, Object> service(Path dir, boolean clean, boolean delivering) {
        Map<String, Object> p = TestDatabase.restartable(dir, clean);
        p.put("gpupool.webhooks.enabled", delivering);
        return p;
    }

    private static String placeOneGpu(ApplicationContext ctx) {
        return ctx.getBean(AllocationService.class).submit(new NewRequest("vision", WorkloadKind.DEV, 1, null,
                null, null, null, null, null, null, null, null, null, null, null), null, ADMIN).lease().id();
    }

    @Test
    void anEventCommittedBeforeTheProcessDiedIsDeliveredAfterTheRestart(@TempDir Path dir) {
        String lease;
        String hook;
        try (WebhookReceiver receiver = new WebhookReceiver()) {
            // Delivery off: the process "dies" after the commit and before anything was derived from it.
            try (ApplicationContext ctx = ApplicationContext.run(service(dir, true, false), "test")) {
                hook = ctx.getBean(Webhooks.class).create("vision", receiver.url(), List.of("placed"), null, ADMIN).webhook().id();
                lease = placeOneGpu(ctx);
                assertThat(ctx.getBean(WebhookDeliveryRepository.class).count()).isZero();
            }

            try (ApplicationContext ctx = ApplicationContext.run(service(dir, false, true), "test")) {
                List<Received> got = receiver.await(1, WITHIN);

                assertThat(got).hasSize(1);
                assertThat(got.get(0).json().get("leaseId").asText()).isEqualTo(lease);
                assertThat(ctx.getBean(Webhooks.class).deliveries(hook, null, 10, ADMIN)).hasSize(1);
            }
        }
    }

    @Test
    void aDeliveryWaitingForItsNextAttemptIsSentAfterTheRestart(@TempDir Path dir) {
        String url = WebhookReceiver.nobodyListening();
        String hook;
        Map<String, Object> first = service(dir, true, true);
        first.put("gpupool.webhooks.backoff-base", "3s"); // one attempt before the stop, its retry due after it
        first.put("gpupool.webhooks.backoff-max", "3s");
        try (ApplicationContext ctx = ApplicationContext.run(first, "test")) {
            Webhooks webhooks = ctx.getBean(Webhooks.class);
            hook = webhooks.create("vision", url, List.of("placed"), null, ADMIN).webhook().id();
            placeOneGpu(ctx);
            awaitAttempts(webhooks, hook, 1);
        }

        try (WebhookReceiver receiver = new WebhookReceiver(URI.create(url).getPort());
             ApplicationContext ctx = ApplicationContext.run(service(dir, false, true), "test")) {
            assertThat(receiver.awaitDeliveries(1, WITHIN)).hasSize(1);
            DeliveryView delivery = awaitState(ctx.getBean(Webhooks.class), hook, "DELIVERED");

            List<DeliveryView.Attempt> attempts = delivery.attemptLog();
            assertThat(attempts.get(attempts.size() - 1).statusCode()).isEqualTo(200);
            assertThat(attempts.subList(0, attempts.size() - 1)).as("the attempts before the restart").isNotEmpty()
                    .allSatisfy(a -> assertThat(a.error()).contains("ConnectException"));
        }
    }

    private static void awaitAttempts(Webhooks webhooks, String hook, int attempts) {
        long deadline = System.nanoTime() + WITHIN.toNanos();
        while (System.nanoTime() < deadline) {
            List<DeliveryView> log = webhooks.deliveries(hook, null, 10, ADMIN);
            if (!log.isEmpty() && log.get(0).attempts() >= attempts) {
                assertThat(log.get(0).state()).isEqualTo("PENDING");
                return;
            }
            pause();
        }
        throw new AssertionError("no attempt within " + WITHIN);
    }

    private static DeliveryView awaitState(Webhooks webhooks, String hook, String state) {
        long deadline = System.nanoTime() + WITHIN.toNanos();
        while (System.nanoTime() < deadline) {
            List<DeliveryView> log = webhooks.deliveries(hook, null, 10, ADMIN);
            if (!log.isEmpty() && log.get(0).state().equals(state)) {
                return log.get(0);
            }
            pause();
        }
        throw new AssertionError("not " + state + " within " + WITHIN + ": " + webhooks.deliveries(hook, null, 10, ADMIN));
    }

    private static void pause() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
