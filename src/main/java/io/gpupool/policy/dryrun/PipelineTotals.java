package io.gpupool.policy.dryrun;

/**
 * One side's totals: {@code gpusChangingHands} counts the distinct GPUs taken from a lease or given
 * to a new one; {@code gpusPreempted}, {@code gpusReclaimed} are GPU equivalents (milli-GPU / 1000)
 * of leases taken back (reclaimed includes expired); {@code reclaimedGpuHoursPerHour} is the GPU
 * capacity reclamation hands back, held from then on (one reclaimed GPU = one GPU-hour per hour);
 * {@code queueLength} is how many requests wait at the end, of {@code queuedBefore} at the start.
 */
public record PipelineTotals(int requestsPlaced, int requestsQueued, int requestsRejected, int gpusChangingHands,
                             double gpusPreempted, double gpusReclaimed, double reclaimedGpuHoursPerHour,
                             int queuedBefore, int queueLength) {
}
