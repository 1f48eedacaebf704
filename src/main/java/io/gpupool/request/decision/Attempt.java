package io.gpupool.request.decision;

import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.PoolReason;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.allocator.PlacementPlan;
import io.gpupool.policy.decision.AdmissionDecision;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.policy.decision.QuotaVerdict;

import java.util.List;

/** The outcome of trying to place one request on one snapshot; nothing is committed yet. */
public sealed interface Attempt {
    /**
     * Refused: by policy ({@code blockedBy} POLICY), or because no card of the pools policy allows
     * could ever host it (NEVER_FITS; {@code admission} then names the rule that chose those pools).
     */
    record Rejected(AdmissionDecision admission, String reasonCode, String message, BlockedBy blockedBy)
            implements Attempt {
        Rejected(AdmissionDecision admission, String reasonCode, String message) {
            this(admission, reasonCode, message, BlockedBy.POLICY);
        }
    }

    /** It fits now in {@code pool}. */
    record Placed(String pool, PlacementPlan plan, QuotaVerdict quota) implements Attempt {
    }

    /**
     * It fits in {@code pool} once {@code victims} (policy-ranked, minimal) give their GPUs back;
     * {@code triedBefore}: why it did not run in the pools tried before that one, in order.
     */
    record Preempt(String pool, List<PreemptionCandidate> victims, QuotaVerdict quota, List<PoolReason> triedBefore)
            implements Attempt {
    }

    /** It waits; {@code why} says what blocks it. */
    record Pending(WhyPending why) implements Attempt {
    }
}
