package io.gpupool.store.row;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;

import java.time.Instant;
import java.util.List;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface WebhookDeliveryRepository extends CrudRepository<WebhookDeliveryRow, String> {
    /** Pending deliveries whose next attempt is due, the longest waiting first (index on state, next attempt). */
    @Query("SELECT * FROM webhook_delivery WHERE state = 'PENDING' AND next_attempt_at <= :now"
            + " ORDER BY next_attempt_at LIMIT :limit")
    List<WebhookDeliveryRow> due(Instant now, int limit);

    /** A webhook's newest deliveries first. */
    @Query("SELECT * FROM webhook_delivery WHERE webhook_id = :webhookId ORDER BY created_at DESC, id LIMIT :limit")
    List<WebhookDeliveryRow> newestOf(String webhookId, int limit);

    @Query("SELECT * FROM webhook_delivery WHERE webhook_id = :webhookId AND state = :state"
            + " ORDER BY created_at DESC, id LIMIT :limit")
    List<WebhookDeliveryRow> newestOf(String webhookId, String state, int limit);
}
