package io.gpupool.store.row;

import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.GenericRepository;

import java.util.List;

/** The price book's changes: added, never updated or deleted, so the table is its own audit trail. */
@JdbcRepository(dialect = Dialect.POSTGRES)
public interface PriceRateRepository extends GenericRepository<PriceRateRow, Long> {
    PriceRateRow save(PriceRateRow row);

    List<PriceRateRow> findAllOrderById();
}
