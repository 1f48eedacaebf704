package io.gpupool.policy.dryrun;

import java.util.List;
import java.util.Objects;

/**
 * What the pipeline did with one queued or what-if request by the end of a dry-run: placed (at
 * {@code priority}, in {@code pool}, on {@code nodes}), still queued (and why: {@code blockedBy}, in {@code pool}),
 * rejected by policy, refused as never placeable, or held for approval. {@code rules} and {@code reasonCode} are those
 * of the decision that put it there, as the decision log states them.
 */
public record RequestFate(String requestId, String tenantId, boolean whatIf, Outcome outcome, int priority,
                          String pool, List<String> nodes, String blockedBy, List<String> rules, String reasonCode, String message) {
    /** AWAITING_APPROVAL: a what-if request approval rules would hold for a person (blockedBy APPROVAL). */
    public enum Outcome { PLACED, QUEUED, REJECTED, REFUSED, AWAITING_APPROVAL }

    public RequestFate {
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
        rules = rules == null ? List.of() : List.copyOf(rules);
    }

    /** Whether two fates are the same decision: outcome, priority, pool, nodes, what blocks it and reason (not messages, whose times move). */
    public boolean sameAs(RequestFate other) {
        return other != null && outcome == other.outcome && priority == other.priority && Objects.equals(pool, other.pool)
                && nodes.equals(other.nodes) && Objects.equals(blockedBy, other.blockedBy)
                && Objects.equals(reasonCode, other.reasonCode);
    }
}
