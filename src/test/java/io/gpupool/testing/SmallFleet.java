package io.gpupool.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The small test fleet (two 8×H100 nodes, one 4×L40S node; org acme with teams vision and speech). */
public final class SmallFleet {
    private SmallFleet() {
    }

    public static void load(Api api) {
        load(api, "/fleets/small-fleet.yaml");
    }

    /** Imports the fleet file {@code resource} (a test resource) as the admin. */
    public static void load(Api api, String resource) {
        try (InputStream in = SmallFleet.class.getResourceAsStream(resource)) {
            String yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(api.postText("/api/v1/fleet", yaml, "application/yaml", Api.ADMIN).status()).isEqualTo(200);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String tenantToken(Api api, String tenant) {
        Api.Reply reply = api.post("/api/v1/tokens", Map.of("name", tenant + "-" + System.nanoTime(), "role", "tenant",
                "tenantId", tenant), Api.ADMIN);
        assertThat(reply.status()).isEqualTo(201);
        return reply.body().get("secret").asText();
    }

    /** A request body; extra entries override the defaults. */
    public static Map<String, Object> request(String tenant, String kind, int gpus, Object... extra) {
        Map<String, Object> body = new HashMap<>();
        body.put("tenant", tenant);
        body.put("kind", kind);
        body.put("gpus", gpus);
        for (int i = 0; i < extra.length; i += 2) {
            body.put((String) extra[i], extra[i + 1]);
        }
        return body;
    }
}
