package io.gpupool.accounting;

import io.gpupool.store.LedgerStore.Column;

import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Where the cost report's GPU time comes from, in milli-GPU·milliseconds per group and bucket: the
 * service's ledger ({@link UsageReports}), or a policy replay's leases held in memory
 * ({@link InMemoryLedger}). {@link CostPricing} prices either the same way.
 */
public interface GpuTimeSource {
    /** Lease GPU time per group of ledger {@code columns} and bucket; {@code tenants} (null: all) restricts it. */
    Map<List<String>, long[]> leaseTime(ReportWindow window, List<Column> columns, Collection<String> tenants);

    /** Healthy capacity no lease held, per (pool, model) and bucket. */
    Map<List<String>, long[]> idleByPoolAndModel(ReportWindow window);
}
