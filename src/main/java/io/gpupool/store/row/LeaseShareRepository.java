package io.gpupool.store.row;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;

import java.util.Collection;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface LeaseShareRepository extends CrudRepository<LeaseShareRow, Long> {
    /** Shares of the leases that still hold devices, in one query (a startup load, not per lease). */
    @Query("SELECT s.* FROM lease_share s JOIN lease l ON l.id = s.lease_id WHERE l.state IN ('ACTIVE', 'PREEMPTING')")
    List<LeaseShareRow> findHeld();

    List<LeaseShareRow> findByLeaseId(String leaseId);

    List<LeaseShareRow> findByLeaseIdInList(Collection<String> leaseIds);
}
