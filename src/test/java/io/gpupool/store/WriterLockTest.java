package io.gpupool.store;

import io.gpupool.problem.ProblemException;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.TestDatabase;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * One writer per PostgreSQL database: a second instance waits for the lock, then refuses naming the
 * holder; it takes over when the first stops; a writer whose session is killed stops writing.
 * (On H2 the database file is locked by H2 itself: skipped there.)
 */
@DatabaseTest
class WriterLockTest {
    private final List<WriterLock> locks = new ArrayList<>();

    @BeforeEach
    void onPostgresOnly() {
        assumeTrue(TestDatabase.isPostgres(), "the writer lock is PostgreSQL's; H2 locks its file itself");
        // Taking the lock raises the writer epoch in a table of the schema: migrate, as the service does first.
        Flyway.configure().dataSource(System.getProperty("datasources.default.url"),
                System.getProperty("datasources.default.username", "postgres"), "").load().migrate();
    }

    @AfterEach
    void releaseAll() {
        locks.forEach(WriterLock::release);
    }

    @Test
    void aSecondInstanceWaitsThenRefusesNamingTheHolder() {
        writer();

        assertThatThrownBy(() -> lock(Duration.ofMillis(600), Duration.ofSeconds(5)).acquire())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Another gpupool instance is the writer for this database (server process")
                .hasMessageContaining("waited PT0.6S");
    }

    @Test
    void aWaitingInstanceTakesOverWhenTheWriterStops() throws Exception {
        WriterLock first = writer();
        WriterLock second = lock(Duration.ofSeconds(20), Duration.ofSeconds(5));
        CompletableFuture<Void> waiting = stillAcquiringAfter(second, 500, "still waiting while the first holds the lock");

        first.release();

        waiting.get(10, TimeUnit.SECONDS);
        second.ensureHeld();
    }

    @Test
    void theLockSessionConnectsWhereLockUrlPointsNotThroughTheDataSourcesUrl() throws Exception {
        long before = epoch();
        // The data source's URL (say, PgBouncer in transaction mode) is never used by the lock's session.
        WriterLock lock = new WriterLock("jdbc:postgresql://127.0.0.1:1/through-a-pooler", System.getProperty("datasources.default.url"),
                System.getProperty("datasources.default.username", "postgres"), "", Duration.ZERO, Duration.ofSeconds(5));
        locks.add(lock);

        lock.acquire();

        lock.ensureHeld();
        assertThat(epoch()).isEqualTo(before + 1);
    }

    @Test
    void aLockUrlThatIsNotAPostgresqlJdbcUrlIsRefusedRatherThanLeavingTheDatabaseUnlocked() {
        assertThatThrownBy(() -> new WriterLock(System.getProperty("datasources.default.url"), "postgresql://127.0.0.1/test",
                "postgres", "", Duration.ZERO, Duration.ofSeconds(5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("gpupool.writer.lock-url must be a PostgreSQL JDBC URL");
    }

    @Test
    void aStartWhoseLockSessionReachesAnotherDatabaseThanTheDataSourceIsRefused() throws Exception {
        WriterLock lock = writer();
        try (Connection same = connect()) {
            lock.checkSameDatabase(same); // the normal start: both reach the test database
        }
        try (Connection sameEpochOtherRaise = connect()) { // what another database at the same epoch looks like
            sameEpochOtherRaise.createStatement().executeUpdate("UPDATE writer_fence SET since = since - interval '1 day'");
            assertThatThrownBy(() -> lock.checkSameDatabase(sameEpochOtherRaise))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Point both at the same database");
        }
        String otherDatabase = System.getProperty("datasources.default.url").replaceFirst("/[^/?]+(\\?.*)?$", "/postgres");
        try (Connection other = DriverManager.getConnection(otherDatabase,
                System.getProperty("datasources.default.username", "postgres"), "")) {
            assertThatThrownBy(() -> lock.checkSameDatabase(other))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("gpupool.writer.lock-url")
                    .hasMessageContaining("Point both at the same database");
        }
    }

    @Test
    void eachInstanceThatTakesTheLockRaisesTheWriterEpoch() throws Exception {
        long before = epoch();
        WriterLock first = writer();
        assertThat(epoch()).isEqualTo(before + 1);
        first.release();

        lock(Duration.ofSeconds(5), Duration.ofSeconds(5)).acquire();

        assertThat(epoch()).isEqualTo(before + 2);
    }

    @Test
    void aWriterThatLetTheLockGoForShutdownCommitsNothingOnceAnotherTookOver() throws Exception {
        WriterLock old = writer();
        old.release();
        lock(Duration.ofSeconds(5), Duration.ofSeconds(5)).acquire(); // the next instance of a rolling restart

        assertNotTheWriter(old::ensureHeld);
        try (Connection tx = connect()) {
            tx.setAutoCommit(false);
            assertThatThrownBy(() -> old.confirm(tx)).isInstanceOfSatisfying(ProblemException.class,
                    e -> assertThat(e.getMessage()).contains("another instance became the writer"));
        }
    }

    @Test
    void takingTheLockRaisesTheEpochOnlyAfterATransactionTheOldWriterConfirmedHasCommitted() throws Exception {
        WriterLock old = writer();
        long before = epoch();
        try (Connection confirmed = confirmedBatchOf(old)) {
            old.release();
            WriterLock next = lock(Duration.ofSeconds(20), Duration.ofMillis(400));
            CompletableFuture<Void> taking = stillAcquiringAfter(next, 700, "waits for the confirmed batch, whose rows it must load");

            confirmed.commit();

            taking.get(10, TimeUnit.SECONDS);
        }
        assertThat(epoch()).isEqualTo(before + 1);
    }

    @Test
    void takingTheLockWaitsForATransactionTheOldWriterConfirmedThenGivesUpCleanlyAfterTheWait() throws Exception {
        WriterLock old = writer();
        long before = epoch();
        try (Connection confirmed = confirmedBatchOf(old)) {
            old.release();

            assertThatThrownBy(() -> lock(Duration.ofMillis(1500), Duration.ofMillis(400)).acquire())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("still holds the writer fence");
            confirmed.commit();
        }

        assertThat(epoch()).as("no raise left pending on the server after giving up").isEqualTo(before);
        lock(Duration.ofSeconds(5), Duration.ofSeconds(5)).acquire();
        assertThat(epoch()).isEqualTo(before + 1);
    }

    @Test
    void aBatchWhoseEpochReadWasRefusedCannotCommitEvenIfAMutationSwallowedTheRefusal() throws Exception {
        WriterLock writer = writer();
        try (Connection other = connect()) {
            other.createStatement().executeUpdate("UPDATE writer_fence SET epoch = epoch + 1 WHERE id = 1");
        }
        try (Connection tx = connect()) {
            tx.setAutoCommit(false);
            EpochCheck carried = new EpochCheck(writer); // read with the batch's first insert
            try (ResultSet epoch = tx.createStatement().executeQuery(carried.pendingRead())) {
                assertThatThrownBy(() -> carried.read(epoch)).isInstanceOf(ProblemException.class);
            }
            assertNotTheWriter(() -> carried.beforeCommit(tx)); // refused again before the commit

            EpochCheck alone = new EpochCheck(writer); // a batch without inserts confirms on its own
            assertNotTheWriter(() -> alone.beforeCommit(tx));
        }
    }

    @Test
    void aWriterWhoseSessionIsKilledStopsWriting() throws Exception {
        WriterLock writer = lock(Duration.ZERO, Duration.ofMillis(100));
        writer.acquire();

        // Only this database's writer: advisory locks are per database, and other services and test
        // forks on the same PostgreSQL hold the same key in theirs (killing those broke them).
        try (Connection admin = connect(); ResultSet rs = admin.createStatement().executeQuery(
                "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                        + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                        + " AND classid::bigint = " + (WriterLock.KEY >>> 32)
                        + " AND objid::bigint = " + (WriterLock.KEY & 0xffffffffL))) {
            assertThat(rs.next()).as("the holder's session was found").isTrue();
        }

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (writer.lostReason() == null && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(writer.lostReason()).isNotNull();
        assertNotTheWriter(writer::ensureHeld);
    }

    /** A writer that holds the lock (no wait, the default check interval). */
    private WriterLock writer() {
        WriterLock writer = lock(Duration.ZERO, Duration.ofSeconds(5));
        writer.acquire();
        return writer;
    }

    /** A transaction of {@code writer}'s that has confirmed the epoch and is not yet committed. */
    private static Connection confirmedBatchOf(WriterLock writer) throws Exception {
        Connection batch = connect();
        batch.setAutoCommit(false);
        writer.confirm(batch);
        return batch;
    }

    /** Starts {@code lock}'s acquire on another thread and checks it is still waiting {@code millis} later. */
    private static CompletableFuture<Void> stillAcquiringAfter(WriterLock lock, long millis, String why) throws InterruptedException {
        CompletableFuture<Void> acquiring = CompletableFuture.runAsync(lock::acquire);
        Thread.sleep(millis);
        assertThat(acquiring).as(why).isNotDone();
        return acquiring;
    }

    private static void assertNotTheWriter(org.assertj.core.api.ThrowableAssert.ThrowingCallable write) {
        assertThatThrownBy(write).isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.kind()).isEqualTo(ProblemException.Kind.UNAVAILABLE));
    }

    private WriterLock lock(Duration wait, Duration check) {
        WriterLock lock = new WriterLock(System.getProperty("datasources.default.url"),
                System.getProperty("datasources.default.username", "postgres"), "", wait, check);
        locks.add(lock);
        return lock;
    }

    private static long epoch() throws Exception {
        try (Connection c = connect(); ResultSet rs = c.createStatement().executeQuery("SELECT epoch FROM writer_fence")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Connection connect() throws Exception {
        return DriverManager.getConnection(System.getProperty("datasources.default.url"),
                System.getProperty("datasources.default.username", "postgres"), "");
    }
}
