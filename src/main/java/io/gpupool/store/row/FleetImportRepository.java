package io.gpupool.store.row;

import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;

import java.util.Optional;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface FleetImportRepository extends CrudRepository<FleetImportRow, Long> {
    Optional<FleetImportRow> findFirstBySourceOrderByIdDesc(String source);
}
