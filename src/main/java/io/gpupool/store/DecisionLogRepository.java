package io.gpupool.store;

import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;

import java.time.Instant;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface DecisionLogRepository extends CrudRepository<DecisionLogRow, Long> {
    List<DecisionLogRow> findByRequestIdOrderById(String requestId);

    List<DecisionLogRow> findByLeaseIdOrderById(String leaseId);

    List<DecisionLogRow> findByAtGreaterThanEqualsOrderById(Instant since);
}
