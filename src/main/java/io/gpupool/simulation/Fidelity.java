package io.gpupool.simulation;

import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether a replay of recorded history under the policy that was active gives back what happened:
 * for each request, the same outcome (placed, rejected, cancelled, still queued), a placement within
 * one scheduling interval of the recorded one, and the same end of its lease (released, preempted,
 * reclaimed, expired) within one sweep interval and grace period. Each difference is listed with its
 * request, both accounts and the likely cause.
 */
public final class Fidelity {
    private Fidelity() {
    }

    public static List<String> differences(List<LoggedDecision> recorded, PolicyRun replayed, Duration passEvery,
                                           Duration sweepAndGrace) {
        Map<String, LoggedDecision> firstFate = new HashMap<>();
        Map<String, String> leaseOf = new HashMap<>();
        Map<String, LoggedDecision> leaseEnd = new HashMap<>();
        for (LoggedDecision d : recorded) {
            switch (d.action()) {
                case ADMIT, REJECT -> {
                    firstFate.putIfAbsent(d.requestId(), d);
                    if (d.action() == DecisionAction.ADMIT) {
                        leaseOf.putIfAbsent(d.requestId(), d.leaseId());
                    }
                }
                case CANCEL -> {
                    if (d.leaseId() == null) {
                        firstFate.putIfAbsent(d.requestId(), d);
                    }
                }
                case RELEASE, PREEMPT, RECLAIM, EXPIRE -> leaseEnd.putIfAbsent(d.leaseId(), d);
                default -> { }
            }
        }
        List<String> out = new ArrayList<>();
        for (JobFate f : replayed.fates()) {
            LoggedDecision was = firstFate.get(f.id());
            JobFate.Outcome recordedOutcome = was == null ? JobFate.Outcome.QUEUED : switch (was.action()) {
                case ADMIT -> JobFate.Outcome.PLACED;
                case REJECT -> JobFate.Outcome.REJECTED;
                default -> JobFate.Outcome.CANCELLED;
            };
            if (recordedOutcome != f.outcome()) {
                out.add(f.id() + ": recorded " + recordedOutcome + (was == null ? "" : " (" + was.reasonCode() + ")")
                        + ", replayed " + f.explanation() + "; cause: " + cause(was, f));
                continue;
            }
            if (was != null && was.action() == DecisionAction.ADMIT) {
                Duration off = Duration.between(was.at(), f.placedAt()).abs();
                if (off.compareTo(passEvery) > 0) {
                    out.add(f.id() + ": placed at " + was.at() + ", replayed at " + f.placedAt() + " (" + off.toMillis()
                            + " ms apart, more than one scheduling interval); cause: " + cause(was, f));
                }
                LoggedDecision end = leaseEnd.get(leaseOf.get(f.id()));
                JobFate.End recordedEnd = end == null ? JobFate.End.HELD_AT_END : switch (end.action()) {
                    case RELEASE -> JobFate.End.RELEASED;
                    case PREEMPT -> JobFate.End.PREEMPTED;
                    case EXPIRE -> JobFate.End.EXPIRED;
                    default -> JobFate.End.RECLAIMED;
                };
                if (recordedEnd != f.end()) {
                    out.add(f.id() + ": its lease was " + recordedEnd + (end == null ? "" : " (" + end.reasonCode() + ")")
                            + ", replayed " + f.end() + " (" + f.reasonCode() + ")");
                } else if (end != null && f.endedAt() != null
                        && Duration.between(end.at(), f.endedAt()).abs().compareTo(sweepAndGrace) > 0) {
                    out.add(f.id() + ": its lease ended at " + end.at() + ", replayed at " + f.endedAt()
                            + " (more than a sweep interval and a grace period apart)");
                }
            }
        }
        return out;
    }

    private static String cause(LoggedDecision was, JobFate replayed) {
        if (was != null && was.policyVersion() != null && replayed.policyVersion() != null
                && !was.policyVersion().equals(replayed.policyVersion())) {
            return "decided by policy " + was.policyVersion() + " then, replayed under " + replayed.policyVersion();
        }
        if (was != null && !was.ruleNames().equals(replayed.ruleNames())) {
            return "different rules: " + was.ruleNames() + " then, " + replayed.ruleNames() + " replayed";
        }
        return "the fleet or the queue differed at that moment (inventory changes are not replayed)";
    }
}
