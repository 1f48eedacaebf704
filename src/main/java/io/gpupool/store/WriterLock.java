package io.gpupool.store;

import io.gpupool.problem.ProblemException;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One writer per database. The working set keeps the pool in memory and trusts it (architecture.md,
 * "Memory and database"): a second instance writing the same database would book GPUs the first
 * believes free. So on PostgreSQL the writer holds a session-level advisory lock on a connection of
 * its own for its whole life; a second instance waits up to {@code gpupool.writer.lock-wait} for
 * it (a rolling restart: the old instance stops, the new one takes over and loads the committed
 * state) and then refuses to start, naming the holder. The lock goes when the holder's connection
 * does, including on {@code kill -9}. Every {@code check} interval the holder verifies it still has
 * it (on a connection with TCP keep-alive and a socket timeout of two intervals, so a cut network
 * fails the check instead of hanging it); if the connection was lost (a database restart, a network cut), another instance may take
 * over, so this one stops writing at once: every write answers 503 and {@code /health} reports DOWN
 * until it is restarted. Between a loss and the next check, a fencing epoch keeps a superseded
 * writer from committing: taking the lock raises the epoch (table {@code writer_fence}), and every
 * write transaction {@link #confirm confirms} it is still its own before it commits.
 * <p>
 * On H2 the database file is locked by H2 itself (a second process cannot open it), so no lock is
 * taken here.
 */
@Singleton
public class WriterLock {
    private static final Logger LOG = LoggerFactory.getLogger(WriterLock.class);
    /** "gpupool" in ASCII: the advisory lock key, the same for every instance of this service. */
    static final long KEY = 0x67707570_6f6f6cL;

    private static final String POSTGRESQL = "jdbc:postgresql:";

    private final String url; // where the lock's session connects
    private final boolean postgres; // the data source is PostgreSQL: the lock is taken
    private final String user;
    private final String password;
    private final Duration wait;
    private final Duration check;
    private Connection connection;
    private ScheduledExecutorService watchdog;
    private volatile String lost;
    private volatile boolean closing;
    private volatile long epoch; // ours, raised when the lock was taken; 0: no lock (H2, tests)
    private volatile Instant raisedAt; // when: with the epoch, what names our raise in the database

    /**
     * @param lockUrl where the lock's own session connects, when not {@code url}: PostgreSQL itself,
     *                past a pooler in transaction mode (PgBouncer), which would hand the session that
     *                holds the lock to other clients between transactions
     */
    @Inject
    public WriterLock(@Value("${datasources.default.url}") String url,
                      @Nullable @Value("${gpupool.writer.lock-url:}") String lockUrl,
                      @Value("${datasources.default.username:}") String user,
                      @Value("${datasources.default.password:}") String password,
                      @Value("${gpupool.writer.lock-wait:30s}") Duration wait,
                      @Value("${gpupool.writer.lock-check:5s}") Duration check) {
        boolean separate = lockUrl != null && !lockUrl.isBlank();
        if (separate && url.startsWith(POSTGRESQL) && !lockUrl.startsWith(POSTGRESQL)) {
            // Otherwise the lock would silently not be taken, and two instances could write the database.
            throw new IllegalArgumentException("gpupool.writer.lock-url must be a PostgreSQL JDBC URL (" + POSTGRESQL
                    + "//host:port/database) like the data source's, was " + lockUrl);
        }
        this.postgres = url.startsWith(POSTGRESQL);
        this.url = separate ? lockUrl : url;
        this.user = user;
        this.password = password;
        this.wait = wait;
        this.check = check;
    }

    /** A lock whose session connects to {@code url} (tests). */
    WriterLock(String url, String user, String password, Duration wait, Duration check) {
        this(url, null, user, password, wait, check);
    }

    /** Takes the lock (waiting up to the configured time), or throws naming who holds it. */
    public synchronized void acquire() {
        if (connection != null || !postgres) {
            return;
        }
        long deadline = System.nanoTime() + wait.toNanos();
        Connection c = null;
        try {
            c = connect();
            long nextLog = 0;
            while (!tryLock(c)) {
                String holder = holder(c);
                if (System.nanoTime() >= deadline) {
                    throw new IllegalStateException("Another gpupool instance is the writer for this database ("
                            + holder + "); waited " + wait + " (gpupool.writer.lock-wait). Stop it, or point this "
                            + "instance at another database: two writers would book the same GPUs.");
                }
                if (System.nanoTime() >= nextLog) {
                    LOG.warn("Waiting to become the writer: {} holds the lock", holder);
                    nextLog = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                }
                Thread.sleep(250);
            }
            // Waits in slices well below the lock connection's socket timeout (two check intervals).
            WriterEpoch.Raised raised = WriterEpoch.raise(c, deadline, Math.max(100, Math.min(1_000, check.toMillis() / 2)), wait);
            raisedAt = raised.since();
            epoch = raised.epoch();
            connection = c;
        } catch (SQLException e) {
            throw new IllegalStateException("Could not take the writer lock: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the writer lock", e);
        } finally {
            if (c != null && connection != c) {
                closeQuietly(c); // not the holder: end the session
            }
        }
        LOG.info("Writer lock taken (PostgreSQL advisory lock {}, writer epoch {})", KEY, epoch);
        watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "writer-lock-check");
            t.setDaemon(true);
            return t;
        });
        watchdog.scheduleWithFixedDelay(this::verify, check.toMillis(), check.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Throws 503 once the lock was lost: this instance must not write any more. */
    public void ensureHeld() {
        String reason = lost;
        if (reason != null) {
            throw notTheWriter(reason);
        }
    }

    private static ProblemException notTheWriter(String reason) {
        return new ProblemException(ProblemException.Kind.UNAVAILABLE, "Not the writer", "This instance lost the writer lock (" + reason
                + ") and no longer writes; restart it to take the lock again and reload the committed state.",
                List.of());
    }

    /**
     * Inside a write transaction, as its last statement before the commit: confirms that no other
     * instance has become the writer since this one took the lock, and keeps that true until the
     * commit (a share lock on the fence row, which a new writer's epoch raise waits for). This
     * closes the window the periodic check leaves open after a lost lock. Throws 503, and stops
     * this instance writing, when another instance has taken over.
     */
    public void confirm(Connection transaction) {
        if (fenced()) {
            check(WriterEpoch.readHolding(transaction));
        }
    }

    /**
     * At start, on a connection of the service's own data source: the lock's session (which may
     * connect elsewhere, {@code gpupool.writer.lock-url}) must have raised the epoch of this very
     * database, or every batch would be refused later for a reason no one could see.
     */
    public void checkSameDatabase(Connection serviceConnection) {
        if (!fenced()) {
            return;
        }
        long seen = -1;
        Instant seenSince = null;
        try (PreparedStatement s = serviceConnection.prepareStatement("SELECT epoch, since FROM writer_fence WHERE id = 1");
             ResultSet rs = s.executeQuery()) {
            if (rs.next()) {
                seen = rs.getLong(1);
                OffsetDateTime since = rs.getObject(2, OffsetDateTime.class);
                seenSince = since == null ? null : since.toInstant();
            }
        } catch (SQLException e) {
            seen = -1; // no fence table where the data source points: another database
        }
        // The epoch alone could match by chance in two databases; the raise's time as well cannot.
        if (seen != epoch || !raisedAt.equals(seenSince)) {
            throw new IllegalStateException("The writer lock's session (gpupool.writer.lock-url) and the service's data"
                    + " source reach different databases: the lock raised writer epoch " + epoch + " at " + raisedAt
                    + ", the data source reads " + (seen < 0 ? "none" : seen + " raised at " + seenSince)
                    + ". Point both at the same database.");
        }
    }

    /** The writer epoch this instance raised when it took the lock; 0 without one (H2, tests). */
    long epoch() {
        return epoch;
    }

    /** Whether write transactions confirm the epoch: PostgreSQL, lock taken. */
    boolean fenced() {
        return epoch != 0;
    }

    /** The epoch a write transaction read under a share lock: 503, and no more writes, unless it is ours. */
    void check(long current) {
        long ours = epoch;
        if (current != ours) {
            String reason = "another instance became the writer (writer epoch " + current + ", this instance's " + ours + ")";
            fence(reason);
            // Thrown whatever fence() did: while shutting down it records nothing, and this batch must still not commit.
            throw notTheWriter(reason);
        }
    }

    /** Null while this instance may write; else why it may not. */
    public String lostReason() {
        return lost;
    }

    private void verify() {
        try (PreparedStatement s = connection.prepareStatement("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
                + " AND pid = pg_backend_pid() AND granted AND classid::bigint = ? AND objid::bigint = ?")) {
            s.setLong(1, KEY >>> 32);
            s.setLong(2, KEY & 0xffffffffL);
            try (ResultSet rs = s.executeQuery()) {
                if (rs.next() && rs.getInt(1) > 0) {
                    return;
                }
            }
            fence("the database no longer shows it held");
        } catch (SQLException e) {
            fence("its connection failed: " + e.getMessage());
        }
    }

    private synchronized void fence(String reason) {
        if (closing) {
            return; // a clean shutdown closes the connection under a running check
        }
        if (lost == null) {
            lost = reason;
            LOG.error("Writer lock lost ({}): refusing every write from now on; restart this instance", reason);
            if (watchdog != null) {
                watchdog.shutdown();
            }
        }
    }

    private Connection connect() throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        p.setProperty("ApplicationName", "gpupool writer lock");
        p.setProperty("tcpKeepAlive", "true");
        // A check on a cut connection fails within this instead of hanging on TCP retransmits.
        p.setProperty("socketTimeout", String.valueOf(Math.max(1, check.toSeconds() * 2)));
        return DriverManager.getConnection(url, p);
    }

    private static boolean tryLock(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
            s.setLong(1, KEY);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /** Who holds the lock, as PostgreSQL sees it. */
    private static String holder(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT a.pid, a.client_addr, a.backend_start FROM pg_locks l"
                + " JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted"
                + " AND l.objsubid = 1 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                + " AND l.classid::bigint = ? AND l.objid::bigint = ?")) {
            s.setLong(1, KEY >>> 32);
            s.setLong(2, KEY & 0xffffffffL);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return "a session that has just ended";
                }
                java.sql.Timestamp since = rs.getTimestamp(3); // hidden for another role's session
                return "server process " + rs.getInt(1) + ", client " + rs.getString(2)
                        + (since == null ? "" : ", connected since " + since.toInstant());
            }
        }
    }

    /** A lock that is never taken: for a second working set over a database whose writer this process already is (tests). */
    static WriterLock none() {
        return new WriterLock("none", "", "", Duration.ZERO, Duration.ofSeconds(5));
    }

    @PreDestroy
    void release() {
        closing = true;
        if (epoch != 0 && lost == null) {
            lost = "this instance is shutting down"; // no write may start once the lock can go to another instance
        }
        if (watchdog != null) {
            watchdog.shutdownNow();
            try {
                watchdog.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (this) {
            if (connection != null) {
                closeQuietly(connection); // ends the session, and with it the lock
                connection = null;
            }
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            LOG.warn("Closing the writer lock connection: {}", e.getMessage());
        }
    }
}
