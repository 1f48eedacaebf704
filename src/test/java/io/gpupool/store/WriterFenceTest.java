package io.gpupool.store;

import io.gpupool.testing.GpuRequests;
import io.gpupool.auth.IssuedToken;
import io.gpupool.auth.Role;
import io.gpupool.auth.TokenService;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.problem.ProblemException;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A writer that was superseded before its periodic lock check noticed cannot commit: another
 * instance that takes the lock raises the writer epoch, and the old writer's next batch finds it
 * raised at its commit, answers 503, writes nothing, and stops writing. The same holds for the
 * token rows written outside the working set.
 * (PostgreSQL only: on H2 the database file admits one process.)
 */
@DatabaseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WriterFenceTest {
    private WriterHarness harness;

    /** A context of its own per test: each test fences its writer for good, and closing it lets the lock go. */
    @BeforeEach
    void start() {
        assumeTrue(TestDatabase.isPostgres(), "the writer lock and its fence are PostgreSQL's; H2 locks its file itself");
        harness = new WriterHarness();
    }

    @AfterEach
    void stop() {
        if (harness != null) {
            harness.close();
            harness = null;
        }
    }

    @Test
    void aWriterSupersededBeforeItsLockCheckNoticedCommitsNothingAndStopsWriting() throws Exception {
        WriterLock lock = harness.ctx.getBean(WriterLock.class); // taken by the context's own working set
        WorkingSet writer = new WorkingSet(harness.ctx.getBean(PoolStore.class), harness.tx, Clock.systemUTC(), 64, lock,
                io.micronaut.context.event.ApplicationEventPublisher.noOp());
        writer.loadFromDatabase();
        writer.write((before, changes) -> {
            changes.put(new Tenant("fenced", "fenced", null, null));
            return null;
        });
        assertThat(lock.lostReason()).as("still the writer").isNull();

        anotherInstanceTakesOver();

        assertThatThrownBy(() -> writer.write(queue("after-takeover")))
                .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.kind()).isEqualTo(ProblemException.Kind.UNAVAILABLE));
        assertThat(lock.lostReason()).contains("another instance became the writer");
        assertThat(rowExists("after-takeover")).as("nothing of the batch committed").isFalse();
        assertThat(writer.current().queued()).doesNotContainKey("after-takeover");
        assertThatThrownBy(() -> writer.write(queue("later")))
                .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.kind()).isEqualTo(ProblemException.Kind.UNAVAILABLE));
    }

    @Test
    void aWriterSupersededBeforeItsLockCheckNoticedIssuesNoToken() throws Exception {
        TokenService tokens = harness.ctx.getBean(TokenService.class);

        anotherInstanceTakesOver();

        assertThatThrownBy(() -> tokens.issue("after-takeover", Role.VIEWER, null, "test"))
                .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.kind()).isEqualTo(ProblemException.Kind.UNAVAILABLE));
        assertThat(count("SELECT count(*) FROM api_token WHERE name = 'after-takeover'")).as("no token row").isZero();
    }

    /** Its own test, so the revocation is the first write after the takeover: the epoch, not an earlier failure, refuses it. */
    @Test
    void aWriterSupersededBeforeItsLockCheckNoticedRevokesNoToken() throws Exception {
        TokenService tokens = harness.ctx.getBean(TokenService.class);
        IssuedToken issued = tokens.issue("before-takeover", Role.VIEWER, null, "test");
        WriterLock lock = harness.ctx.getBean(WriterLock.class);

        anotherInstanceTakesOver();
        assertThat(lock.lostReason()).as("the lock check has not noticed yet").isNull();

        assertThatThrownBy(() -> tokens.revoke(issued.token().id()))
                .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.kind()).isEqualTo(ProblemException.Kind.UNAVAILABLE));
        assertThat(count("SELECT count(*) FROM api_token WHERE name = 'before-takeover' AND revoked_at IS NULL"))
                .as("the revocation did not commit").isEqualTo(1);
        assertThat(lock.lostReason()).contains("another instance became the writer");
    }

    /** What another instance does once it holds the lock. */
    private static void anotherInstanceTakesOver() throws Exception {
        try (Connection other = connect()) {
            other.createStatement().executeUpdate("UPDATE writer_fence SET epoch = epoch + 1 WHERE id = 1");
        }
    }

    private static Mutation<String> queue(String id) {
        return (before, changes) -> {
            Instant now = Instant.now();
            GpuRequest request = GpuRequests.request(id).tenant("fenced").kind(WorkloadKind.DEV).milliPerGpu(500).at(now)
                    .build();
            changes.insert(request);
            return id;
        };
    }

    private static boolean rowExists(String requestId) throws Exception {
        return count("SELECT count(*) FROM gpu_request WHERE id = '" + requestId + "'") > 0;
    }

    private static int count(String query) throws Exception {
        try (Connection c = connect(); ResultSet rs = c.createStatement().executeQuery(query)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static Connection connect() throws Exception {
        return DriverManager.getConnection(System.getProperty("datasources.default.url"),
                System.getProperty("datasources.default.username", "postgres"), "");
    }
}
