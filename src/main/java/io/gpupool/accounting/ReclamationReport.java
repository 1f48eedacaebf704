package io.gpupool.accounting;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The reclamation report (docs/reports.md, "Reclamation"). {@code reclaims}: per bucket of the
 * reclaim, rule and group, the leases reclaimed, the GPUs they gave back and the GPU-hours returned
 * (up to the lease's expiry, or the window's end for a lease without one), the time from the start
 * of idleness to the reclaim where the decision log knows it, and how much of the returned capacity
 * another tenant's lease took within 10 minutes. {@code preemptions}: per bucket, rule and group (the
 * tenant dimensions name the victim), the leases preempted, their GPUs and the GPU-hours of work they
 * had done (lost, without checkpoints).
 */
public record ReclamationReport(Instant from, Instant to, String step, List<String> groupBy, List<ReclaimRow> reclaims,
                                List<PreemptionRow> preemptions) {
    public record ReclaimRow(Instant bucket, String rule, Map<String, String> group, int reclaims, BigDecimal gpus,
                             BigDecimal gpuHoursReturned, int idleKnown, BigDecimal idleToReclaimP50Seconds,
                             BigDecimal idleToReclaimMaxSeconds, BigDecimal reusedWithin10mGpus,
                             BigDecimal reusedWithin10mShare) {
    }

    public record PreemptionRow(Instant bucket, String rule, Map<String, String> group, int preemptions,
                                BigDecimal gpus, BigDecimal gpuHoursLost) {
    }
}
