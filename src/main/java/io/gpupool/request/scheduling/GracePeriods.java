package io.gpupool.request.scheduling;

import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.domain.lease.Notice;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.request.decision.Outcome;
import io.gpupool.request.decision.PolicyPipeline;
import io.gpupool.store.Mutation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The step that ends grace periods that ran out, on whichever model (the live writer's, a dry-run's
 * uncommitted changes, a replay's): PREEMPTED for the request a notice names, handed over to it in the
 * same commit; RECLAIMED otherwise. {@link LifecycleScheduler} runs it on the live model each pass.
 */
final class GracePeriods {
    private static final Logger LOG = LoggerFactory.getLogger(GracePeriods.class);

    private GracePeriods() {
    }

    /**
     * The step itself, on whichever model: returns the leases whose grace period had run out at
     * {@code now} (each ended, or already gone). A dry-run calls it on uncommitted changes.
     */
    static List<String> endGracePeriods(ModelWriter model, PolicyPipeline pipeline, Instant now) {
        return endGracePeriods(model, pipeline, now, WritesInParts.CHANGES_PER_WRITE);
    }

    /** As above, the leases nobody waits for ended {@code changesPerWrite} a write (tests compare with one a write). */
    static List<String> endGracePeriods(ModelWriter model, PolicyPipeline pipeline, Instant now, int changesPerWrite) {
        Map<String, List<String>> victimsOf = new LinkedHashMap<>(); // preemptor → its victims whose notice ran out
        List<String> reclaimed = new ArrayList<>();
        for (Lease lease : model.current().underNotice().values()) {
            if (lease.deadline() == null || lease.deadline().isAfter(now)) {
                continue;
            }
            String preemptor = lease.notice() == null ? null : lease.notice().forRequest();
            if (preemptor == null) {
                reclaimed.add(lease.id());
            } else {
                victimsOf.computeIfAbsent(preemptor, k -> new ArrayList<>()).add(lease.id());
            }
        }
        List<String> ended = new ArrayList<>();
        // Each ends on its own (no request waits for it): independent changes, stated a part at a time.
        WritesInParts.inParts(model, reclaimed, changesPerWrite, part -> end(part, now));
        ended.addAll(reclaimed);
        victimsOf.forEach((preemptor, victims) -> {
            try {
                model.write(end(victims, now), done -> handOver(pipeline, preemptor, now));
            } catch (HandOverFailed e) {
                // A bug in the decision, say: the leases still end, and the request waits for the
                // scheduling pass, rather than the leases never ending.
                LOG.error("Handing leases {} to request {} failed; ending them alone", victims, preemptor, e);
                model.write(end(victims, now));
            }
            ended.addAll(victims);
        });
        return ended;
    }

    /**
     * Ends leases whose grace period ran out, logged with the explanation their notice kept:
     * PREEMPTED for the request it names, RECLAIMED when it names none. Returns how many it ended.
     */
    private static Mutation<Integer> end(List<String> leaseIds, Instant now) {
        return (before, changes) -> {
            int ended = 0;
            LastInstantText deadlines = new LastInstantText();
            for (String leaseId : leaseIds) {
                Lease current = before.lease(leaseId).orElse(null);
                if (current == null || current.state() != LeaseState.PREEMPTING) {
                    continue;
                }
                Notice notice = current.notice();
                String preemptor = notice == null ? null : notice.forRequest();
                Lease gone = LeaseTransitions.end(current, preemptor != null ? LeaseState.PREEMPTED : LeaseState.RECLAIMED,
                        now);
                changes.update(gone).log(LoggedDecision.of(preemptor != null ? DecisionAction.PREEMPT : DecisionAction.RECLAIM,
                        preemptor != null ? preemptor : current.requestId(), current.id(), current.tenantId(),
                        notice == null ? List.of() : notice.ruleNames(), notice == null ? null : notice.policyVersion(),
                        notice == null ? "GRACE_ENDED" : notice.reasonCode(),
                        "Grace period ended at " + deadlines.of(current.deadline()) + "; GPUs taken back"), now);
                changes.endRequestOf(gone, now);
                ended++;
            }
            return ended;
        };
    }

    /** Retries {@code requestId} on the GPUs its victims just gave back, in their commit. */
    private static Mutation<Outcome> handOver(PolicyPipeline pipeline, String requestId, Instant now) {
        return (before, changes) -> {
            GpuRequest waiting = before.queued().get(requestId);
            if (waiting == null) {
                return null; // cancelled meanwhile, say
            }
            try {
                return pipeline.retry(before, changes, waiting, now, false);
            } catch (RuntimeException e) {
                throw new HandOverFailed(e);
            }
        };
    }

    /** The hand-over step failed, not the ending of the leases: they can still end alone. */
    private static final class HandOverFailed extends RuntimeException {
        HandOverFailed(RuntimeException cause) {
            super(cause);
        }
    }
}
