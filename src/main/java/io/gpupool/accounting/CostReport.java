package io.gpupool.accounting;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Cost per bucket and group over a window: GPU time priced hour by hour with the rate in force (the
 * price book), plus the idle capacity of reserved pools charged to whoever the configuration names
 * (funding {@code RESERVED_IDLE}). {@code unpricedGpuHours}: time no rate covers (cost 0).
 */
public record CostReport(Instant from, Instant to, String step, List<String> groupBy, String reservedIdlePayer,
                         List<Row> rows, List<Total> totals) {
    public record Row(Instant bucket, Map<String, String> group, String currency, BigDecimal gpuHours, BigDecimal cost,
                      BigDecimal unpricedGpuHours) {
    }

    public record Total(String currency, BigDecimal gpuHours, BigDecimal cost, BigDecimal unpricedGpuHours) {
    }
}
