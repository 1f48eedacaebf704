package io.gpupool.store.row;

import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;

import java.util.List;

/** The dry-run log is append-only: this repository can add a record and read them, nothing else. */
@JdbcRepository(dialect = Dialect.POSTGRES)
public interface PolicyDryRunRepository extends GenericRepository<PolicyDryRunRow, Long> {
    PolicyDryRunRow save(PolicyDryRunRow row);

    List<PolicyDryRunRow> listOrderById();

    long count();
}
