package io.gpupool.store.row;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.GeneratedValue;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;

@MappedEntity("usage_sample")
public record UsageSampleRow(@Id @GeneratedValue @Nullable Long id, String leaseId, String deviceId, Instant at,
                             double utilisation, long memoryUsedMib) {
}
