package io.gpupool.accounting;

import java.time.Instant;
import java.util.List;

/** A tenant's monthly statement: its and its teams' cost lines (tenant, pool, model, funding) and totals. */
public record Statement(String tenant, String name, String costCenter, String month, Instant from, Instant to,
                        String reservedIdlePayer, List<CostReport.Row> lines, List<CostReport.Total> totals) {
}
