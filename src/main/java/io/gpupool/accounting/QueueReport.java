package io.gpupool.accounting;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The queue report (docs/reports.md, "Queues"). {@code rows}: per bucket and group, requests
 * admitted in the bucket with their waits (arrival to admission; percentiles by nearest rank, in
 * seconds), the requests rejected, cancelled, denied or lapsed in approval, and sent to approval in
 * it, and the requests still waiting at the bucket's end (censored: their wait is not known yet, so
 * they are counted apart with the age of the oldest, never mixed into the percentiles).
 * {@code pressure} (admins and viewers; null for a tenant): per bucket and card model, the GPUs
 * queued requests asked for against the model's GPUs in service, both averaged over the bucket.
 */
public record QueueReport(Instant from, Instant to, String step, List<String> groupBy, List<Row> rows,
                          List<PressureRow> pressure) {
    public record Row(Instant bucket, Map<String, String> group, int admitted, BigDecimal waitP50Seconds,
                      BigDecimal waitP90Seconds, BigDecimal waitP99Seconds, BigDecimal waitMaxSeconds, int rejected,
                      int cancelled, int deniedOrLapsed, int sentToApproval, int stillWaiting,
                      BigDecimal stillWaitingOldestSeconds) {
    }

    public record PressureRow(Instant bucket, String model, BigDecimal queuedGpus, BigDecimal supplyGpus,
                              BigDecimal queuedPerSupply) {
    }
}
