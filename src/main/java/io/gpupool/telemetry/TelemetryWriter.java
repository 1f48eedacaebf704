package io.gpupool.telemetry;

import io.gpupool.config.BackgroundPriority;
import io.gpupool.domain.inventory.NodeAgent;
import io.gpupool.store.DeferredFlush;
import io.gpupool.store.WriterLock;
import io.micronaut.transaction.TransactionOperations;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Writes agent reports' routine part — the node's presence (sequence, time) and the activity
 * samples — off the inventory's writer: one thread takes whatever reports queued up while it wrote
 * the previous lot and writes them in ONE transaction (multi-row inserts, one presence row per
 * node), so the cost per report falls as the rate rises (group commit). A report's future completes
 * once its rows are committed: an agent is answered only for what is committed. The queue is bounded
 * ({@link TelemetrySettings#queueReports()}); a full queue refuses the report with
 * {@link TelemetryBacklog} (429) instead of holding more in memory.
 *
 * <p>On PostgreSQL the transaction does not wait for its own WAL flush ({@link DeferredFlush}) unless
 * {@code gpupool.telemetry.wait-for-flush} is set: "committed" then means visible and atomic, and on
 * disk with the next flush (within ~600 ms); a crash of the database server in between loses the
 * samples (a gap, as a missed scrape) and the presence row (the node's next report writes it again).
 *
 * <p>Transactions start at most once per {@code gpupool.telemetry.commit-interval} (default 200 ms):
 * a report that arrives sooner after the last one began waits for the next, together with every
 * report that arrives meanwhile. A fleet's routine reports then cost the database a few
 * transactions a second instead of one per report or two (measured at 125 reports/s: docs/performance.md,
 * "Node agent ingest"): each transaction is round-trips, a writer-fence check and a
 * wake-up of a database backend that the lease path's commits would otherwise not share the cores
 * with. An agent reports every few seconds, so the wait is a small part of its interval; 0 writes
 * each lot as soon as it is there (the tests' setting). After a full transaction
 * ({@value #MAX_REPORTS_PER_TRANSACTION} reports) the next starts at once: the interval gathers, it
 * never holds back a backlog.
 */
@Singleton
public class TelemetryWriter {
    private static final Logger LOG = LoggerFactory.getLogger(TelemetryWriter.class);
    /** Rows per INSERT: 7 parameters a row keeps a statement far below the drivers' limits. */
    private static final int ROWS_PER_INSERT = 500;
    private static final int MAX_REPORTS_PER_TRANSACTION = 500;
    private static final long STOP_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** One report's durable part. {@code agent} null: samples only. */
    record Pending(String nodeId, NodeAgent agent, List<ActivitySample> samples, CompletableFuture<Void> done) {
    }

    private final TransactionOperations<Connection> tx;
    private final WriterLock writerLock;
    private final BlockingQueue<Pending> queue;
    private final Thread thread;
    private volatile boolean stopping;

    private final Consumer<List<Pending>> sink;
    private final boolean waitForFlush;
    private final long commitIntervalNanos;

    @Inject
    TelemetryWriter(TransactionOperations<Connection> tx, WriterLock writerLock, TelemetrySettings settings,
                    @io.micronaut.context.annotation.Value("${gpupool.telemetry.nice:10}") int nice,
                    @io.micronaut.context.annotation.Value("${gpupool.telemetry.wait-for-flush:false}") boolean waitForFlush) {
        this(tx, writerLock, settings.queueReports(), null, BackgroundPriority.of(nice), waitForFlush, settings.commitInterval());
    }

    /** With {@code sink} instead of the database (the back-pressure tests hold it), writing each lot at once. */
    TelemetryWriter(int queueReports, Consumer<List<Pending>> sink) {
        this(queueReports, sink, Duration.ZERO);
    }

    /** With {@code sink} instead of the database, starting a write at most once per {@code commitInterval}. */
    TelemetryWriter(int queueReports, Consumer<List<Pending>> sink, Duration commitInterval) {
        this(null, null, queueReports, sink, BackgroundPriority.of(0), true, commitInterval);
    }

    private TelemetryWriter(TransactionOperations<Connection> tx, WriterLock writerLock, int queueReports,
                            Consumer<List<Pending>> sink, BackgroundPriority background, boolean waitForFlush,
                            Duration commitInterval) {
        this.tx = tx;
        this.waitForFlush = waitForFlush;
        this.commitIntervalNanos = commitInterval.toNanos();
        this.writerLock = writerLock;
        this.sink = sink != null ? sink : this::write;
        this.queue = new ArrayBlockingQueue<>(queueReports);
        // at the background priority: the lease path's threads come first when the cores are busy
        this.thread = background.factory("telemetry-writer").newThread(this::run);
        thread.start();
    }

    /**
     * Queues a report's presence and samples; the future completes when they are committed (or
     * fails with the reason they were not). Throws {@link TelemetryBacklog} when the queue is full.
     */
    public CompletableFuture<Void> submit(String nodeId, NodeAgent agent, List<ActivitySample> samples) {
        Pending p = new Pending(nodeId, agent, List.copyOf(samples), new CompletableFuture<>());
        if (stopping || !queue.offer(p)) {
            throw new TelemetryBacklog(queue.size(), 1);
        }
        return p.done();
    }

    /** Reports waiting to be written (for the meters and the tests of back-pressure). */
    public int queued() {
        return queue.size();
    }

    private void run() {
        List<Pending> batch = new ArrayList<>();
        long lastStart = System.nanoTime() - commitIntervalNanos;
        boolean lastFull = false;
        while (!stopping || !queue.isEmpty()) {
            try {
                Pending first = queue.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                if (!lastFull) { // after a full transaction there is a backlog: nothing to wait for
                    gatherUntil(batch, lastStart + commitIntervalNanos);
                }
                queue.drainTo(batch, MAX_REPORTS_PER_TRANSACTION - batch.size());
                lastStart = System.nanoTime();
                lastFull = batch.size() >= MAX_REPORTS_PER_TRANSACTION;
                sink.accept(batch);
                batch.forEach(p -> p.done().complete(null));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.warn("Telemetry of {} reports not written: {}", batch.size(), e.toString());
                batch.forEach(p -> p.done().completeExceptionally(e));
            } finally {
                batch.clear();
            }
        }
    }

    /**
     * Takes reports into {@code batch} as they arrive until {@code deadline} ({@link System#nanoTime()}),
     * a full transaction's worth, or shutdown, whichever comes first.
     */
    private void gatherUntil(List<Pending> batch, long deadline) throws InterruptedException {
        long left;
        while (!stopping && batch.size() < MAX_REPORTS_PER_TRANSACTION && (left = deadline - System.nanoTime()) > 0) {
            // in slices, so that a shutdown is seen within one: it writes what is gathered at once
            Pending next = queue.poll(Math.min(left, STOP_CHECK_NANOS), TimeUnit.NANOSECONDS);
            if (next != null) {
                batch.add(next);
            }
        }
    }

    private void write(List<Pending> batch) {
        List<ActivitySample> samples = new ArrayList<>();
        Map<String, NodeAgent> presence = new LinkedHashMap<>();
        for (Pending p : batch) {
            samples.addAll(p.samples());
            if (p.agent() != null) {
                presence.merge(p.nodeId(), p.agent(), (a, b) -> b.sequence() > a.sequence() ? b : a);
            }
        }
        writerLock.ensureHeld();
        tx.executeWrite(status -> {
            Connection c = status.getConnection();
            writerLock.confirm(c);
            try {
                if (!waitForFlush) {
                    DeferredFlush.apply(c);
                }
                insertSamples(c, samples);
                upsertPresence(c, presence);
            } catch (SQLException e) {
                throw new IllegalStateException("telemetry write failed: " + e.getMessage(), e);
            }
            return null;
        });
    }

    static void insertSamples(Connection c, List<ActivitySample> samples) throws SQLException {
        for (int from = 0; from < samples.size(); from += ROWS_PER_INSERT) {
            List<ActivitySample> chunk = samples.subList(from, Math.min(samples.size(), from + ROWS_PER_INSERT));
            String sql = "INSERT INTO device_sample (device_id, gpu_instance_id, mig_profile, at_ms, metric, activity, "
                    + "framebuffer_used_mib) VALUES " + String.join(", ", Collections.nCopies(chunk.size(), "(?, ?, ?, ?, ?, ?, ?)"));
            try (PreparedStatement st = c.prepareStatement(sql)) {
                int i = 1;
                for (ActivitySample s : chunk) {
                    st.setString(i++, s.deviceId());
                    setInt(st, i++, s.gpuInstanceId());
                    st.setString(i++, s.migProfile());
                    st.setLong(i++, s.at().toEpochMilli());
                    st.setString(i++, s.metric());
                    if (s.value() == null) {
                        st.setNull(i++, Types.REAL);
                    } else {
                        st.setFloat(i++, s.value().floatValue());
                    }
                    setInt(st, i++, s.framebufferUsedMib() == null ? null : (int) Math.min(Integer.MAX_VALUE, s.framebufferUsedMib()));
                }
                st.executeUpdate();
            }
        }
    }

    /** One row per node: updated where it exists, inserted where not (portable: no upsert dialect). */
    private static void upsertPresence(Connection c, Map<String, NodeAgent> presence) throws SQLException {
        if (presence.isEmpty()) {
            return;
        }
        List<String> ids = new ArrayList<>(presence.keySet());
        List<String> missing = new ArrayList<>();
        try (PreparedStatement st = c.prepareStatement("UPDATE node_presence SET sequence = ?, reported_at_ms = ?, "
                + "interval_seconds = ?, source = ? WHERE node_id = ? AND sequence < ?")) {
            for (String id : ids) {
                NodeAgent a = presence.get(id);
                st.setLong(1, a.sequence());
                st.setLong(2, a.lastReportAt().toEpochMilli());
                st.setInt(3, a.intervalSeconds());
                st.setString(4, a.source());
                st.setString(5, id);
                st.setLong(6, a.sequence());
                st.addBatch();
            }
            int[] counts = st.executeBatch();
            for (int i = 0; i < ids.size(); i++) {
                if (counts[i] == 0) {
                    missing.add(ids.get(i));
                }
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        Map<String, Long> known = new java.util.HashMap<>();
        try (PreparedStatement st = c.prepareStatement("SELECT node_id, sequence FROM node_presence WHERE node_id IN ("
                + String.join(", ", Collections.nCopies(missing.size(), "?")) + ")")) {
            for (int i = 0; i < missing.size(); i++) {
                st.setString(i + 1, missing.get(i));
            }
            try (var rs = st.executeQuery()) {
                while (rs.next()) {
                    known.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        missing.removeIf(known::containsKey); // already newer: a later report got there first
        if (missing.isEmpty()) {
            return;
        }
        try (PreparedStatement st = c.prepareStatement("INSERT INTO node_presence (node_id, sequence, reported_at_ms, "
                + "interval_seconds, source) VALUES " + String.join(", ", Collections.nCopies(missing.size(), "(?, ?, ?, ?, ?)")))) {
            int i = 1;
            for (String id : missing) {
                NodeAgent a = presence.get(id);
                st.setString(i++, id);
                st.setLong(i++, a.sequence());
                st.setLong(i++, a.lastReportAt().toEpochMilli());
                st.setInt(i++, a.intervalSeconds());
                st.setString(i++, a.source());
            }
            st.executeUpdate();
        }
    }

    private static void setInt(PreparedStatement st, int i, Integer v) throws SQLException {
        if (v == null) {
            st.setNull(i, Types.INTEGER);
        } else {
            st.setInt(i, v);
        }
    }

    @PreDestroy
    void stop() throws InterruptedException {
        stopping = true;
        thread.join(5_000); // what is queued is written before the context closes
    }
}
