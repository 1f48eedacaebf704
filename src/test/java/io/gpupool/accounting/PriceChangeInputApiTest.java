package io.gpupool.accounting;

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

import java.util.Map;
import java.util.stream.Stream;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * A price change the book cannot keep is refused as a 400 problem naming the field, with a short
 * answer whatever was sent, and the book stays as it was.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PriceChangeInputApiTest {
    private static final String HOUR = "\"effectiveFrom\":\"2027-01-01T00:00:00Z\"";

    @Inject
    @Client("/")
    HttpClient client;
    Api api;

    @BeforeAll
    void loadFleet() {
        api = new Api(client);
        SmallFleet.load(api);
    }

    private String book() {
        return api.get("/api/v1/prices", ADMIN).body().toString();
    }

    static Stream<Arguments> badChanges() {
        return Stream.of(
                arguments("no model", "{\"perGpuHour\":1," + HOUR + "}", "model: is required"),
                arguments("no rate", "{\"model\":\"H100-SXM-80G\"," + HOUR + "}", "perGpuHour: is required"),
                arguments("no start", "{\"model\":\"H100-SXM-80G\",\"perGpuHour\":1}", "effectiveFrom: is required"),
                arguments("a negative rate", "{\"model\":\"H100-SXM-80G\",\"perGpuHour\":-0.5," + HOUR + "}",
                        "perGpuHour: must be between 0 and 1000000 with at most 4 decimals, was -0.5"),
                arguments("a rate with five decimals", "{\"model\":\"H100-SXM-80G\",\"perGpuHour\":1.00001," + HOUR + "}",
                        "was 1.00001"),
                arguments("a borrowed rate beyond a million", "{\"model\":\"H100-SXM-80G\",\"perGpuHour\":1,\"borrowedPerGpuHour\":1000001," + HOUR + "}",
                        "borrowedPerGpuHour: must be between 0 and 1000000"),
                arguments("a negative reserved-idle rate", "{\"model\":\"H100-SXM-80G\",\"perGpuHour\":1,\"reservedIdlePerGpuHour\":-1," + HOUR + "}",
                        "reservedIdlePerGpuHour: must be between 0 and 1000000"),
                arguments("a rate in words", "{\"model\":\"H100-SXM-80G\",\"perGpuHour\":\"two euros\"," + HOUR + "}", "perGpuHour"),
                arguments("an unknown tier", "{\"model\":\"H100-SXM-80G\",\"perGpuHour\":1,\"tier\":\"GOLD\"," + HOUR + "}",
                        "tier: 'GOLD' is not one of * or CRITICAL_RESERVED, TRAINING, DEV_SHARED, ELASTIC"),
                arguments("a currency that is not a code", "{\"model\":\"H100-SXM-80G\",\"perGpuHour\":1,\"currency\":\"euro\"," + HOUR + "}",
                        "currency: 'euro' is not a three-letter ISO 4217 code"),
                arguments("a start inside an hour", "{\"model\":\"H100-SXM-80G\",\"perGpuHour\":1,\"effectiveFrom\":\"2027-01-01T00:15:00Z\"}",
                        "effectiveFrom: 2027-01-01T00:15:00Z is not a whole hour"),
                arguments("a start before 2000", "{\"model\":\"H100-SXM-80G\",\"perGpuHour\":1,\"effectiveFrom\":\"1999-01-01T00:00:00Z\"}",
                        "effectiveFrom: 1999-01-01T00:00:00Z is outside the years 2000 to 9999"),
                arguments("a start that is not a time", "{\"model\":\"H100-SXM-80G\",\"perGpuHour\":1,\"effectiveFrom\":\"new year\"}",
                        "effectiveFrom: 'new year' is not an ISO-8601 instant"),
                arguments("a model longer than its column", "{\"model\":\"" + "m".repeat(129) + "\",\"perGpuHour\":1," + HOUR + "}",
                        "model: at most 128 characters"),
                arguments("a note longer than its column", "{\"model\":\"H100-SXM-80G\",\"perGpuHour\":1,\"note\":\"" + "n".repeat(1001) + "\"," + HOUR + "}",
                        "note: at most 1000 characters"));
    }

    @ParameterizedTest(name = "a price change with {0} is refused and the book stays as it was")
    @MethodSource("badChanges")
    void aPriceChangeTheBookCannotKeepIsRefusedAndTheBookStays(String what, String body, String says) {
        String before = book();

        Reply reply = api.send(HttpRequest.POST("/api/v1/prices", body).contentType(MediaType.APPLICATION_JSON_TYPE), ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(400);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.body().toString()).contains(says);
        assertThat(book()).isEqualTo(before);
    }

    @Test
    void aRateOfAThousandDigitsIsQuotedShortInTheAnswer() {
        String rate = "9".repeat(1000);

        Reply reply = api.send(HttpRequest.POST("/api/v1/prices", "{\"model\":\"H100-SXM-80G\",\"perGpuHour\":" + rate + "," + HOUR + "}")
                .contentType(MediaType.APPLICATION_JSON_TYPE), ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.detail()).contains("perGpuHour: must be between 0 and 1000000").contains("(1000 characters)")
                .doesNotContain("9".repeat(65));
        assertThat(reply.body().toString().length()).isLessThan(1024);
    }

    @Test
    void everyReasonIsListedAtOnce() {
        Reply reply = api.send(HttpRequest.POST("/api/v1/prices", "{\"perGpuHour\":-1,\"currency\":\"x\"}")
                .contentType(MediaType.APPLICATION_JSON_TYPE), ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.body().get("errors").toString()).contains("model: is required").contains("perGpuHour: must be between")
                .contains("currency: 'x'").contains("effectiveFrom: is required");
    }

    @Test
    void aValidChangeIsKeptWithItsDefaultsAndWhoMadeIt() {
        Reply reply = api.post("/api/v1/prices", Map.of("model", "L40S-48G", "perGpuHour", 0.75,
                "effectiveFrom", "2027-02-01T00:00:00Z"), ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(201);
        assertThat(book()).as("kept under the catalog's name").contains("L40S-PCIE-48G").contains("EUR").contains("2027-02-01T00:00:00Z");
    }
}
