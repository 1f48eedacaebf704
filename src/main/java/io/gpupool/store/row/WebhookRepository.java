package io.gpupool.store.row;

import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;

import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface WebhookRepository extends CrudRepository<WebhookRow, String> {
    List<WebhookRow> findByTenantIdOrderByCreatedAt(String tenantId);

    long countByTenantId(String tenantId);
}
