package io.gpupool.store.row;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;

import java.time.Instant;
import java.util.List;

/**
 * Reads of the append-only decision log. Entries are inserted with the batch's other hot rows
 * ({@code store.HotRowWriter}); nothing here can update or delete one, which is why this is not a
 * {@code CrudRepository}.
 */
@JdbcRepository(dialect = Dialect.POSTGRES)
public interface DecisionLogRepository extends GenericRepository<DecisionLogRow, Long> {
    List<DecisionLogRow> findByRequestIdOrderById(String requestId);

    List<DecisionLogRow> findByLeaseIdOrderById(String leaseId);

    /**
     * The first page of the entries at or after {@code since}, in log order (by id, the order they
     * committed in): it starts at the first entry by time, found through the index on (at, id), so
     * it does not scan the log from its start. An entry stamped at or after {@code since} that
     * committed before that one (a write's time is taken before it queues) is left out: a few
     * milliseconds' blur at the window's edge, never inside a page sequence.
     */
    @Query("SELECT * FROM decision_log WHERE at >= :since AND id >= (SELECT f.id FROM decision_log f"
            + " WHERE f.at >= :since ORDER BY f.at, f.id LIMIT 1) ORDER BY id LIMIT :limit")
    List<DecisionLogRow> firstPageSince(Instant since, int limit);

    /** The page after the entry {@code afterId}, in log order. */
    @Query("SELECT * FROM decision_log WHERE id > :afterId AND at >= :since ORDER BY id LIMIT :limit")
    List<DecisionLogRow> pageSinceAfter(Instant since, long afterId, int limit);

    /** The entries after {@code afterId}, in log order (the order they committed in: one writer). */
    @Query("SELECT * FROM decision_log WHERE id > :afterId ORDER BY id LIMIT :limit")
    List<DecisionLogRow> after(long afterId, int limit);

    /** The id of the newest entry, 0 when the log is empty. */
    @Query("SELECT COALESCE(MAX(id), 0) FROM decision_log")
    long lastId();

    /** How many times {@code requestId} was queued before the entry {@code beforeId}. */
    @Query("SELECT COUNT(*) FROM decision_log WHERE request_id = :requestId AND action = 'QUEUE' AND id < :beforeId")
    long queuedBefore(String requestId, long beforeId);
}
