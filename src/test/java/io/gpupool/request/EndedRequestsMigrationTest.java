package io.gpupool.request;

import io.gpupool.testing.Api;
import io.gpupool.testing.Api.Reply;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.SmallFleet;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;

import static io.gpupool.testing.SmallFleet.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * V9 turns the rows written before requests could end: a PLACED request whose lease was released
 * becomes ENDED; one whose lease is live stays PLACED.
 */
@MicronautTest(transactional = false, rebuildContext = true)
@DatabaseTest
class EndedRequestsMigrationTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    DataSource dataSource;

    @Test
    void aPlacedRequestWhoseLeaseEndedBeforeV9IsEndedByIt() throws Exception {
        Api api = new Api(client);
        SmallFleet.load(api);
        String vision = SmallFleet.tenantToken(api, "vision");
        Reply released = api.post("/api/v1/requests", request("vision", "dev", 1), vision);
        Reply live = api.post("/api/v1/requests", request("vision", "dev", 1), vision);
        assertThat(api.post("/api/v1/leases/" + released.body().at("/lease/id").asText() + "/release", Map.of(), vision).status())
                .isEqualTo(200);
        String endedId = released.body().at("/request/id").asText();
        String liveId = live.body().at("/request/id").asText();

        try (Connection c = io.micronaut.data.connection.jdbc.advice.DelegatingDataSource.unwrapDataSource(dataSource)
                .getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement asBefore = c.prepareStatement("UPDATE gpu_request SET state = 'PLACED' WHERE id = ?")) {
                asBefore.setString(1, endedId); // as the row was before requests could end
                asBefore.executeUpdate();
            }
            try (Statement migrate = c.createStatement()) {
                migrate.executeUpdate(v9());
            }
            assertThat(state(c, endedId)).isEqualTo("ENDED");
            assertThat(state(c, liveId)).isEqualTo("PLACED");
        }
    }

    private static String state(Connection c, String id) throws Exception {
        try (PreparedStatement s = c.prepareStatement("SELECT state FROM gpu_request WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getString(1);
            }
        }
    }

    private static String v9() throws Exception {
        try (InputStream in = EndedRequestsMigrationTest.class.getResourceAsStream(
                "/db/migration/V9__requests_of_ended_leases_are_ended.sql")) {
            String sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return sql.lines().filter(l -> !l.startsWith("--")).reduce("", (a, b) -> a + "\n" + b).trim().replaceAll(";$", "");
        }
    }
}
