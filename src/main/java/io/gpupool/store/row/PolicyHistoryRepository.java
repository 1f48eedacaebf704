package io.gpupool.store.row;

import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;

import java.util.List;
import java.util.Optional;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface PolicyHistoryRepository extends CrudRepository<PolicyHistoryRow, Long> {
    Optional<PolicyHistoryRow> findFirstOrderBySeqDesc();

    List<PolicyHistoryRow> findAllOrderBySeq();
}
