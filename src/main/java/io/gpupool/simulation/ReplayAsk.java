package io.gpupool.simulation;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A replay job as asked over the API (docs/api.md, "Policy replay"): exactly one workload — the
 * service's {@code history} for a window, a generic {@code workload} CSV, or an Alibaba {@code trace}
 * (pod list and node list) — an optional {@code fleet} document to replay on instead, the
 * {@code policies} to compare ("active" or a stored version number; the first is the baseline), an
 * optional {@code upload}ed candidate rule set, and optional interval {@code settings}.
 */
public record ReplayAsk(History history, String workload, Trace trace, String fleet, List<String> policies,
                        Map<String, String> upload, Settings settings) {
    public record History(Instant from, Instant to) {
    }

    public record Trace(String pods, String nodes) {
    }

    /** Durations such as 30s, 5m, 1h; null: the service's own intervals. */
    public record Settings(String sweepEvery, String passEvery, String sampleEvery) {
    }
}
