package io.gpupool.accounting;

import io.micronaut.core.annotation.Nullable;

import java.math.BigDecimal;

/**
 * The body of {@code POST /api/v1/prices}: from {@code effectiveFrom} (a whole UTC hour) on, a GPU-hour
 * of {@code model} (or {@code *}) in {@code tier} (or {@code *}) costs {@code perGpuHour}; borrowed
 * capacity costs {@code borrowedPerGpuHour} and idle reserved capacity {@code reservedIdlePerGpuHour}
 * when given (else the base rate).
 */
public record PriceChange(@Nullable String model, @Nullable String tier, @Nullable BigDecimal perGpuHour,
                          @Nullable BigDecimal borrowedPerGpuHour, @Nullable BigDecimal reservedIdlePerGpuHour,
                          @Nullable String currency, @Nullable String effectiveFrom, @Nullable String note) {
}
