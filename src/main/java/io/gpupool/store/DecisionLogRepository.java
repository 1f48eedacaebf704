package io.gpupool.store;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;

import java.time.Instant;
import java.util.List;

/**
 * Reads of the append-only decision log. Entries are inserted with the batch's other hot rows
 * ({@link HotRowWriter}); nothing here can update or delete one, which is why this is not a
 * {@code CrudRepository}.
 */
@JdbcRepository(dialect = Dialect.POSTGRES)
public interface DecisionLogRepository extends GenericRepository<DecisionLogRow, Long> {
    List<DecisionLogRow> findByRequestIdOrderById(String requestId);

    List<DecisionLogRow> findByLeaseIdOrderById(String leaseId);

    /**
     * The first page of the entries at or after {@code since}, in time order (ties by id): the
     * index on (at, id) makes this a range scan however long the log is.
     */
    @Query("SELECT * FROM decision_log WHERE at >= :since ORDER BY at, id LIMIT :limit")
    List<DecisionLogRow> firstPageSince(Instant since, int limit);

    /** The page after the entry {@code afterId}, in the same order (none if there is no such entry). */
    @Query("SELECT * FROM decision_log WHERE at >= :since"
            + " AND (at, id) > (SELECT a.at, a.id FROM decision_log a WHERE a.id = :afterId)"
            + " ORDER BY at, id LIMIT :limit")
    List<DecisionLogRow> pageSinceAfter(Instant since, long afterId, int limit);
}
