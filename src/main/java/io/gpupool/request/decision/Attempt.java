package io.gpupool.request.decision;

import io.gpupool.domain.request.WhyPending;
import io.gpupool.allocator.PlacementPlan;
import io.gpupool.policy.decision.AdmissionDecision;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.policy.decision.QuotaVerdict;

import java.util.List;

/** The outcome of trying to place one request on one snapshot; nothing is committed yet. */
public sealed interface Attempt {
    /** Policy refused the request. */
    record Rejected(AdmissionDecision admission, String reasonCode, String message) implements Attempt {
    }

    /** It fits now in {@code pool}. */
    record Placed(String pool, PlacementPlan plan, QuotaVerdict quota) implements Attempt {
    }

    /** It fits in {@code pool} once {@code victims} (policy-ranked, minimal) give their GPUs back. */
    record Preempt(String pool, List<PreemptionCandidate> victims, QuotaVerdict quota) implements Attempt {
    }

    /** It waits; {@code why} says what blocks it. */
    record Pending(WhyPending why) implements Attempt {
    }
}
