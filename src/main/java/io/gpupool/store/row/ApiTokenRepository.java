package io.gpupool.store.row;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface ApiTokenRepository extends CrudRepository<ApiTokenRow, String> {
    Optional<ApiTokenRow> findByTokenHash(String tokenHash);

    List<ApiTokenRow> findByRevokedAtIsNull();

    long countByRoleAndRevokedAtIsNull(String role);

    void updateLastUsedAt(@Id String id, Instant lastUsedAt);
}
