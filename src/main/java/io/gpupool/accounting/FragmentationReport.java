package io.gpupool.accounting;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The fragmentation report (docs/reports.md, "Fragmentation"), from the sampler's rows: per bucket
 * and group (pool, tier or none: the sum over pools at each sample), how many samples fell in it,
 * the free GPUs and the stranded GPUs (free capacity the recent request mix cannot use: the
 * allocator's FGD fragment) as means over the samples and the stranded maximum, the fragmentation
 * ratio (Σ stranded / Σ free, in %), and the largest gang still placeable: the most whole free GPUs
 * of one model on one node ({@code largestMemberGpus}) and in the group ({@code wholeFreeGpus}),
 * each as its minimum over the samples and at the bucket's last sample.
 */
public record FragmentationReport(Instant from, Instant to, String step, List<String> groupBy, List<Row> rows) {
    public record Row(Instant bucket, Map<String, String> group, int samples, BigDecimal freeGpus,
                      BigDecimal strandedGpus, BigDecimal strandedGpusMax, BigDecimal fragmentationPct,
                      int largestMemberGpusMin, int largestMemberGpusLast, int wholeFreeGpusMin, int wholeFreeGpusLast) {
    }
}
