package io.gpupool.store.row;

import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;

/** The single active-version pointer (id is always 1). */
@MappedEntity("policy_active")
public record PolicyActiveRow(@Id int id, long version, Instant activatedAt, String activatedBy) {
}
