package io.gpupool.store.row;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.GeneratedValue;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;

/** The record of one applied fleet document: who, when, from where, its hash and what it changed. */
@MappedEntity("fleet_import")
public record FleetImportRow(@Id @GeneratedValue @Nullable Long id, String source, String contentHash,
                             String importedBy, Instant importedAt, String summary) {
}
