package io.gpupool.store.row;

import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;

import java.util.List;
import java.util.Optional;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface GpuRequestRepository extends CrudRepository<GpuRequestRow, String> {
    Optional<GpuRequestRow> findByTenantIdAndIdempotencyKey(String tenantId, String idempotencyKey);

    List<GpuRequestRow> findByState(String state);
}
