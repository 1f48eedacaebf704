package io.gpupool.store.row;

import io.micronaut.core.annotation.Creator;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.GeneratedValue;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;

/** One append-only decision log entry; {@code ruleNames} is a JSON array; {@code idleSince}: see LoggedDecision. */
@MappedEntity("decision_log")
public record DecisionLogRow(@Id @GeneratedValue @Nullable Long id, Instant at, String action,
                             @Nullable String requestId, @Nullable String leaseId, @Nullable String tenantId,
                             String ruleNames, @Nullable String policyVersion, String reasonCode, String message,
                             @Nullable Instant idleSince) {
    @Creator
    public DecisionLogRow {
    }

    public DecisionLogRow(Long id, Instant at, String action, String requestId, String leaseId, String tenantId,
                          String ruleNames, String policyVersion, String reasonCode, String message) {
        this(id, at, action, requestId, leaseId, tenantId, ruleNames, policyVersion, reasonCode, message, null);
    }
}
