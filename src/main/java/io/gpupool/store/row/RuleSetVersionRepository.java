package io.gpupool.store.row;

import io.micronaut.data.annotation.Query;
import io.micronaut.data.jdbc.annotation.JdbcRepository;
import io.micronaut.data.model.query.builder.sql.Dialect;
import io.micronaut.data.repository.CrudRepository;

import java.util.List;
import java.util.Optional;

@JdbcRepository(dialect = Dialect.POSTGRES)
public interface RuleSetVersionRepository extends CrudRepository<RuleSetVersionRow, Long> {
    Optional<RuleSetVersionRow> findByContentHash(String contentHash);

    @Query("SELECT COALESCE(MAX(version), 0) FROM rule_set_version")
    long maxVersion();

    @Query("SELECT version, content_hash, author, message, created_at, parent_version, '' AS files FROM rule_set_version ORDER BY version")
    List<RuleSetVersionRow> listWithoutFiles();
}
