package io.gpupool.store.row;

import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;

import java.util.Collection;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface WebhookAttemptRepository extends CrudRepository<WebhookAttemptRow, Long> {
    List<WebhookAttemptRow> findByDeliveryIdInListOrderByAt(Collection<String> deliveryIds);
}
