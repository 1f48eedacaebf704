package io.gpupool.accounting;

import io.gpupool.fleet.FleetImporter;
import io.gpupool.testing.TestClock;
import io.micronaut.data.connection.jdbc.advice.DelegatingDataSource;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * The start of a report test's timeline: the small test fleet imported with the clock stopped a day
 * before the window, so its cards are in service from then on whatever the real date; and a
 * connection outside the service's transactions, committing each row as the test writes it.
 */
final class SmallFleetTimeline {
    private SmallFleetTimeline() {
    }

    static void importFleetTheDayBefore(Instant windowStart, TestClock clock, FleetImporter fleet) throws IOException {
        clock.freezeAt(windowStart.minus(Duration.ofDays(1)));
        try (InputStream in = SmallFleetTimeline.class.getResourceAsStream("/fleets/small-fleet.yaml")) {
            fleet.importText(new String(in.readAllBytes(), StandardCharsets.UTF_8), true, "small-fleet.yaml", "test");
        }
    }

    static Connection autoCommitting(DataSource dataSource) throws SQLException {
        Connection c = DelegatingDataSource.unwrapDataSource(dataSource).getConnection();
        c.setAutoCommit(true);
        return c;
    }
}
