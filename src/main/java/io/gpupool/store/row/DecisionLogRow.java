package io.gpupool.store.row;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.GeneratedValue;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;

/** One append-only decision log entry; {@code ruleNames} is a JSON array. */
@MappedEntity("decision_log")
public record DecisionLogRow(@Id @GeneratedValue @Nullable Long id, Instant at, String action,
                             @Nullable String requestId, @Nullable String leaseId, @Nullable String tenantId,
                             String ruleNames, @Nullable String policyVersion, String reasonCode, String message) {
}
