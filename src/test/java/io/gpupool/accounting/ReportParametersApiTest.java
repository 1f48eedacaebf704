package io.gpupool.accounting;

import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.gpupool.testing.Api.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Every report checks its period, step and grouping the same way: whatever is wrong is a 400
 * problem (also when CSV was asked for) that names the parameter and what it should be, and all
 * that is wrong is listed, not only the first. Tokens of roles a report is not for get 403.
 */
@MicronautTest(transactional = false)
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReportParametersApiTest {
    private static final List<String> REPORTS = List.of("usage", "cost", "queues", "reclamation", "utilisation", "fragmentation");
    private static final String HOUR = "2026-12-01T10:00:00Z";
    private static final String LATER = "2026-12-01T12:00:00Z";

    @Inject
    @Client("/")
    HttpClient client;
    Api api;
    String agent;
    String vision;

    @BeforeAll
    void loadFleet() {
        api = new Api(client);
        SmallFleet.load(api);
        agent = api.post("/api/v1/tokens", Map.of("name", "agent-reports", "role", "agent", "nodes", List.of("h100-a")), ADMIN)
                .body().get("secret").asText();
        vision = SmallFleet.tenantToken(api, "vision");
    }

    static Stream<Arguments> badPeriods() {
        List<Arguments> cases = new ArrayList<>();
        for (String report : REPORTS) {
            cases.add(arguments(report, "a start after the end", "from=" + LATER + "&to=" + HOUR,
                    "from: " + LATER + " is not before to " + HOUR));
            cases.add(arguments(report, "a start equal to the end", "from=" + HOUR + "&to=" + HOUR,
                    "from: " + HOUR + " is not before to " + HOUR));
            cases.add(arguments(report, "a start that is not a time", "from=monday&to=" + LATER,
                    "from: 'monday' is not an ISO-8601 instant"));
            cases.add(arguments(report, "an end that is not a time", "from=" + HOUR + "&to=2026-12-01",
                    "to: '2026-12-01' is not an ISO-8601 instant"));
            cases.add(arguments(report, "a start inside an hour", "from=2026-12-01T10:30:00Z&to=" + LATER,
                    "from: 2026-12-01T10:30:00Z is not a whole hour"));
            cases.add(arguments(report, "an end inside an hour", "from=" + HOUR + "&to=2026-12-01T11:00:01Z",
                    "to: 2026-12-01T11:00:01Z is not a whole hour"));
            cases.add(arguments(report, "a start before the year 2000", "from=1999-12-31T23:00:00Z&to=" + LATER,
                    "from: 1999-12-31T23:00:00Z is outside the years 2000 to 9999"));
            cases.add(arguments(report, "a start at the edge of what an instant holds", "from=-999999999-01-01T00:00:00Z&to=" + LATER,
                    "outside the years 2000 to 9999"));
            cases.add(arguments(report, "a step that is not one", "from=" + HOUR + "&to=" + LATER + "&step=fortnight",
                    "step: 'fortnight' is not one of hour, day, week, month"));
            cases.add(arguments(report, "more buckets than a year of hours", "from=2026-01-01T00:00:00Z&to=2027-01-03T00:00:00Z&step=hour",
                    "more than 8784 buckets; use a longer step"));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "the {0} report refuses {1} with 400 naming it")
    @MethodSource("badPeriods")
    void aBadPeriodIsRefusedWith400NamingTheParameter(String report, String what, String query, String says) {
        Reply reply = api.get("/api/v1/reports/" + report + "?" + query, ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(400);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.detail()).startsWith("The report's period is not valid").contains(says);
    }

    static Stream<Arguments> badGroupings() {
        List<Arguments> cases = new ArrayList<>();
        for (String report : REPORTS) {
            cases.add(arguments(report, "colour", "groupBy: 'colour' is not one of"));
            cases.add(arguments(report, "pool,,model", "groupBy: '' is not one of"));
        }
        cases.add(arguments("fragmentation", "tenant", "groupBy: 'tenant' has no meaning for the fragmentation report"));
        cases.add(arguments("queues", "funding", "groupBy: 'funding' has no meaning for the queues report"));
        return cases.stream();
    }

    @ParameterizedTest(name = "the {0} report refuses groupBy={1}")
    @MethodSource("badGroupings")
    void aGroupingTheReportDoesNotKnowIsRefusedNamingIt(String report, String groupBy, String says) {
        Reply reply = api.get("/api/v1/reports/" + report + "?from=" + HOUR + "&to=" + LATER + "&groupBy=" + groupBy, ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(400);
        assertThat(reply.detail()).startsWith("The report's grouping is not valid").contains(says);
    }

    @ParameterizedTest(name = "the {0} report lists every wrong parameter at once")
    @ValueSource(strings = {"usage", "cost", "queues", "reclamation", "utilisation", "fragmentation"})
    void everyWrongParameterIsListedNotOnlyTheFirst(String report) {
        Reply reply = api.get("/api/v1/reports/" + report + "?from=monday&to=tuesday", ADMIN);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.body().get("errors").findValuesAsText("")).isEmpty();
        assertThat(reply.body().get("errors").toString()).contains("from: 'monday'").contains("to: 'tuesday'");
    }

    @ParameterizedTest(name = "the {0} report answers a bad period asked for as CSV with problem JSON")
    @ValueSource(strings = {"usage", "cost", "queues", "reclamation", "utilisation", "fragmentation"})
    void aBadPeriodAskedForAsCsvIsStillAProblemJson(String report) {
        HttpClientResponseException refused = org.junit.jupiter.api.Assertions.assertThrows(HttpClientResponseException.class,
                () -> client.toBlocking().exchange(HttpRequest.GET("/api/v1/reports/" + report + "?from=" + LATER + "&to=" + HOUR)
                        .bearerAuth(ADMIN).accept("text/csv"), String.class));

        assertThat(refused.getStatus().getCode()).isEqualTo(400);
        assertThat(refused.getResponse().getContentType().map(Object::toString)).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(refused.getResponse().getBody(String.class).orElse("")).contains("is not before to");
    }

    @ParameterizedTest(name = "an agent token may not read the {0} report")
    @ValueSource(strings = {"usage", "cost", "queues", "reclamation", "utilisation", "fragmentation", "statement?tenant=vision&month=2026-12"})
    void anAgentTokenMayNotReadAReport(String report) {
        Reply reply = api.get("/api/v1/reports/" + report, agent);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(403);
        assertThat(reply.detail()).contains("Role 'agent' may not call this endpoint");
    }

    @ParameterizedTest(name = "a tenant token may not read the fleet-wide {0}")
    @ValueSource(strings = {"fragmentation", "ledger/check"})
    void aTenantTokenMayNotReadFleetWideFigures(String report) {
        Reply reply = api.get("/api/v1/reports/" + report, vision);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(403);
        assertThat(reply.detail()).contains("Role 'tenant' may not call this endpoint");
    }

    static Stream<Arguments> badStatements() {
        return Stream.of(
                arguments("no month", "tenant=vision", 400, "month: is required"),
                arguments("no tenant", "month=2026-12", 400, "tenant: is required"),
                arguments("a thirteenth month", "tenant=vision&month=2026-13", 400, "month: '2026-13' is not a month such as"),
                arguments("a day instead of a month", "tenant=vision&month=2026-12-01", 400, "month: '2026-12-01' is not a month such as"),
                arguments("a month before 2000", "tenant=vision&month=1999-12", 400, "month: 1999-12 is outside the years 2000 to 9998"),
                arguments("a month in the year 9999", "tenant=vision&month=9999-12", 400, "month: 9999-12 is outside the years 2000 to 9998"),
                arguments("an unknown tenant", "tenant=nobody&month=2026-12", 404, "Unknown tenant 'nobody'"));
    }

    @ParameterizedTest(name = "a statement with {0} is refused")
    @MethodSource("badStatements")
    void aStatementWithBadParametersIsRefusedNamingThem(String what, String query, int status, String says) {
        Reply reply = api.get("/api/v1/reports/statement?" + query, ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(status);
        assertThat(reply.contentType()).startsWith("application/problem+json");
        assertThat(reply.detail()).contains(says);
    }

    static Stream<Arguments> badParts() {
        return Stream.of(
                arguments("queues", "part: 'bogus' is not one of rows, pressure"),
                arguments("reclamation", "part: 'bogus' is not one of reclaims, preemptions"),
                arguments("utilisation", "part: 'bogus' is not one of rows, leases, tenants"));
    }

    @ParameterizedTest(name = "the {0} report refuses an unknown part naming the parts it has")
    @MethodSource("badParts")
    void anUnknownPartIsRefusedNamingThePartsItHas(String report, String says) {
        Reply reply = api.get("/api/v1/reports/" + report + "?from=" + HOUR + "&to=" + LATER + "&part=bogus", ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(400);
        assertThat(reply.detail()).contains(says);
    }

    @ParameterizedTest(name = "the utilisation report refuses top={0}")
    @ValueSource(strings = {"0", "-1", "101", "ten", "1.5"})
    void theUtilisationReportRefusesATopOutsideOneToAHundred(String top) {
        Reply reply = api.get("/api/v1/reports/utilisation?from=" + HOUR + "&to=" + LATER + "&top=" + top, ADMIN);

        assertThat(reply.status()).as(reply.body().toString()).isEqualTo(400);
        assertThat(reply.detail()).contains("top: '" + top + "' is not a whole number from 1 to 100");
    }
}
