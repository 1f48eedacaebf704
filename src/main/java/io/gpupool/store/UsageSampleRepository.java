package io.gpupool.store;

import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;

import java.time.Instant;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface UsageSampleRepository extends CrudRepository<UsageSampleRow, Long> {
    List<UsageSampleRow> findByAtGreaterThanEquals(Instant since);
}
