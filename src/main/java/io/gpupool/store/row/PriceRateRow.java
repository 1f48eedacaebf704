package io.gpupool.store.row;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.GeneratedValue;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.math.BigDecimal;
import java.time.Instant;

/** One change of the price book (table {@code price_rate}, migration V13): rows are only ever added. */
@MappedEntity("price_rate")
public record PriceRateRow(@Id @GeneratedValue @Nullable Long id, String model, String tier, BigDecimal perGpuHour,
                           @Nullable BigDecimal borrowedPerGpuHour, @Nullable BigDecimal reservedIdlePerGpuHour,
                           String currency, Instant effectiveFrom, String changedBy, Instant changedAt,
                           @Nullable String note) {
}
