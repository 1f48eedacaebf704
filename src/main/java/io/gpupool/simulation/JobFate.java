package io.gpupool.simulation;

import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.WorkloadKind;

import java.time.Instant;
import java.util.List;

/**
 * What one policy did to one job: where its request ended up ({@link Outcome}), when it was placed
 * and on which card model, how its lease ended ({@link End}), and the decision that explains it —
 * rule names, policy version, reason code and message, as the decision log would show them.
 * {@code lostGpuHours} is the work its lease had done when it was preempted (0 otherwise); {@code lease}
 * is the lease as it was placed (null when never placed): its shares, pool and funding are what the
 * replay's cost is priced from, as the ledger prices a live lease.
 */
public record JobFate(String id, String tenant, WorkloadKind kind, String priorityClass, double gpus,
                      Instant arrival, Outcome outcome, Instant placedAt, String model, End end, Instant endedAt,
                      List<String> ruleNames, String policyVersion, String reasonCode, String message,
                      double lostGpuHours, Lease lease) {
    public enum Outcome {
        /** It got a lease. */
        PLACED,
        /** Still waiting when the window closed. */
        QUEUED,
        /** Policy refused it. */
        REJECTED,
        /** Refused at submission: no card it may use could ever host it. */
        REFUSED,
        /** Its owner gave up waiting (as recorded). */
        CANCELLED,
        /**
         * Held by an approval rule: a person decides, which a replay cannot; it holds nothing and
         * waits until the window closes, so a candidate's approval rules show as this count.
         */
        AWAITING_APPROVAL
    }

    /** How a placed job's lease ended; null while it was never placed. */
    public enum End { RELEASED, PREEMPTED, RECLAIMED, EXPIRED, HELD_AT_END }

    /** Seconds from arrival to placement; -1 when it was never placed. */
    public long waitSeconds() {
        return placedAt == null ? -1 : java.time.Duration.between(arrival, placedAt).getSeconds();
    }

    /** The explanation in one line: rule names, version and reason. */
    public String explanation() {
        return outcome + (end == null ? "" : "/" + end) + ": " + String.join(" + ", ruleNames)
                + (policyVersion == null ? "" : " (" + policyVersion + ")") + (reasonCode == null ? "" : " " + reasonCode)
                + (message == null ? "" : " - " + message);
    }
}
