package io.gpupool.policy.dryrun;

/**
 * One thing that would change if the candidate policy replaced the active one, shown as text with
 * the rule responsible on each side ("—" and null when a side decided nothing).
 */
public record DecisionChange(Subject subject, String id, Aspect aspect, String before, String after,
                             String ruleBefore, String ruleAfter) {
    public static final String NOTHING = "—";

    public enum Subject { REQUEST, LEASE, DEVICE }

    public enum Aspect { ADMISSION, POOLS, PRIORITY, QUOTA, PREEMPTION, RECLAIM, TIER, LABELS }

    /** The candidate newly decides something where the active policy decided nothing. */
    public boolean isNew() {
        return NOTHING.equals(before) && !NOTHING.equals(after);
    }
}
