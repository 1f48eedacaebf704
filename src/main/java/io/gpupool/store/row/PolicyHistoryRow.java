package io.gpupool.store.row;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;

/** One append-only policy history record; the rule lists are JSON arrays. */
@MappedEntity("policy_history")
public record PolicyHistoryRow(@Id long seq, String event, @Nullable Long version, @Nullable String contentHash,
                               String author, String message, Instant at, String rulesAdded, String rulesRemoved,
                               String rulesChanged, String diff, String details, String prevHash, String recordHash) {
}
