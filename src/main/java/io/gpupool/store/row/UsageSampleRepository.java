package io.gpupool.store.row;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;

import java.time.Instant;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface UsageSampleRepository extends CrudRepository<UsageSampleRow, Long> {
    List<UsageSampleRow> findByAtGreaterThanEquals(Instant since);

    /**
     * Per heartbeat since {@code since}, of the leases that still hold GPUs, the mean utilisation
     * over the GPUs reported, oldest first: what the usage recorder held before a restart.
     */
    @Query("SELECT s.lease_id, s.at, AVG(s.utilisation) AS utilisation FROM usage_sample s"
            + " JOIN lease l ON l.id = s.lease_id"
            + " WHERE l.state IN ('ACTIVE', 'PREEMPTING') AND s.at >= :since"
            + " GROUP BY s.lease_id, s.at ORDER BY s.at")
    List<LeaseUsagePoint> heldLeasesUsageSince(Instant since);
}
