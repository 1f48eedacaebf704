package io.gpupool.store.row;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.GeneratedValue;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;

/** One dry-run as recorded: who ran which candidate (by content hash) when, and the summary of its diff. */
@MappedEntity("policy_dry_run")
public record PolicyDryRunRow(@Id @GeneratedValue @Nullable Long id, Instant at, String principal, String candidateHash,
                              String candidateVersion, String activeVersion, String input, int requestsChanged,
                              int leasesChanged, int devicesChanged, boolean safeToActivate, String summary) {
}
