package io.gpupool.simulation;

/**
 * What a tenant's GPU-hours on a card model cost: the hook where the operations layer's ledger
 * (GPU-hour prices per model, issue 19) plugs into the replay's "cost by tenant". Until it is wired,
 * {@link #NONE} leaves cost out of the summary and only GPU-hours held are reported.
 */
public interface CostModel {
    /** The cost of {@code gpuHours} of {@code model} held by {@code tenant}; NaN when unpriced. */
    double costOf(String tenant, String model, double gpuHours);

    CostModel NONE = (tenant, model, gpuHours) -> Double.NaN;
}
