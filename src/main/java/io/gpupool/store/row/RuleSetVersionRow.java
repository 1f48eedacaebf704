package io.gpupool.store.row;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;

/** A stored rule-set version; {@code files} is the JSON object path → text. Never updated. */
@MappedEntity("rule_set_version")
public record RuleSetVersionRow(@Id long version, String contentHash, String author, String message,
                                Instant createdAt, @Nullable Long parentVersion, String files) {
}
