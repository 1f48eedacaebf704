package io.gpupool.request;

import io.gpupool.request.decision.Outcome;
import io.gpupool.request.decision.PolicyPipeline;
import io.gpupool.request.decision.TimeOrderedIds;
import io.gpupool.request.backfill.Backfill;
import io.gpupool.request.input.QueueOrder;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.auth.Caller;
import io.gpupool.governance.ActivePolicy;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;
import io.gpupool.store.WorkingSet;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Tenants' GPU requests: submit (placed, queued or rejected), read, cancel, and the retry of one
 * queued request that a scheduling pass drives ({@code QueuePass}). Every decision runs as one writer mutation (see {@link WorkingSet}): policy and
 * placement see one consistent snapshot, and the lease, the request, the victims' notices and the
 * decision log commit together — two requests can never be placed on the same free capacity.
 */
@Singleton
public class AllocationService {
    private final WorkingSet workingSet;
    private final PolicyPipeline pipeline;
    private final Clock clock;

    AllocationService(WorkingSet workingSet, PolicyEngine engine, ActivePolicy active, Clock clock,
                      @Value("${gpupool.preemption.grace:30s}") Duration grace,
                      @Value("${gpupool.preemption.candidate-nodes:32}") int candidateNodes,
                      @Value("${gpupool.preemption.widen-every:30s}") Duration widenEvery,
                      @Value("${gpupool.approvals.expire-after:72h}") Duration approvalLapse) {
        if (approvalLapse.isNegative() || approvalLapse.isZero()) {
            throw new IllegalArgumentException("gpupool.approvals.expire-after must be positive, was " + approvalLapse);
        }
        if (candidateNodes < 0) {
            throw new IllegalArgumentException("gpupool.preemption.candidate-nodes must be 0 (every node) or more, was "
                    + candidateNodes);
        }
        this.workingSet = workingSet;
        this.pipeline = new PolicyPipeline(engine, active, grace, candidateNodes, widenEvery, approvalLapse);
        this.clock = clock;
    }

    public Outcome submit(NewRequest in, String idempotencyKey, Caller caller) {
        if (in == null) {
            throw ProblemException.invalid("A request body is required");
        }
        in.validate();
        PoolSnapshot snapshot = workingSet.current();
        snapshot.tenant(in.tenant()).orElseThrow(() -> ProblemException.notFound("tenant", in.tenant()));
        caller.requireReach(in.tenant(), snapshot);
        if (in.pool() != null) {
            snapshot.pool(in.pool()).orElseThrow(() -> ProblemException.notFound("pool", in.pool()));
        }
        requireFleetCanEverHost(in, snapshot);
        String key = idempotencyKey == null || idempotencyKey.isBlank() ? null : idempotencyKey.trim();
        if (key != null && key.length() > 128) {
            throw ProblemException.invalid("Idempotency-Key: at most 128 characters");
        }
        Outcome outcome = workingSet.write((before, changes) -> {
            Instant now = clock.instant();
            GpuRequest request = new GpuRequest(TimeOrderedIds.next(), in.tenant(), key, in.kind(), in.gpus(),
                    in.milliOrWhole(), in.migProfile(), in.models(), in.minGpuMemoryMib() == null ? 0 : in.minGpuMemoryMib(),
                    in.requiresOrNone(), in.gangOrOne(), in.topology() == null ? "ANY" : in.topology().name(),
                    Boolean.TRUE.equals(in.topologyRequired()), in.pool(), in.priorityClass(),
                    !Boolean.FALSE.equals(in.preemptible()), in.ttlSeconds() == null ? 0 : in.ttlSeconds(),
                    RequestState.QUEUED, 0, null, null, now, now);
            if (key != null) {
                Optional<GpuRequest> earlier = changes.findRequest(in.tenant(), key);
                if (earlier.isPresent()) {
                    requireSameAsk(earlier.get(), request, key);
                    return replay(before, earlier.get(), changes.findLease(String.valueOf(earlier.get().leaseId())));
                }
            }
            return pipeline.submit(before, changes, request, now);
        });
        if (pipeline.makesNewHead(outcome)) {
            // A new head of its pool's queue: reserve for it now rather than at the next scheduling pass.
            workingSet.write((before, changes) -> pipeline.refreshReservations(before, clock.instant()));
        }
        return outcome;
    }

    public GpuRequest get(String id, Caller caller) {
        PoolSnapshot snapshot = workingSet.current();
        GpuRequest request = Optional.ofNullable(snapshot.queued().get(id))
                .or(() -> workingSet.read(store -> store.findRequest(id)))
                .orElseThrow(() -> ProblemException.notFound("request", id));
        caller.requireReach(request.tenantId(), snapshot);
        return request;
    }

    public int positionOf(GpuRequest request) {
        return request.state() == RequestState.QUEUED ? QueueOrder.position(workingSet.current(), request) : 0;
    }

    /** Cancels a queued request, or releases the lease of a placed one. */
    public GpuRequest cancel(String id, Caller caller) {
        get(id, caller);
        return workingSet.write(cancelling(id, caller.principal(), clock::instant));
    }

    /**
     * The owner's cancel as a write: a queued request leaves the queue, a placed one's lease is
     * released. The live service and the policy replay's simulated owners cancel with this same write.
     */
    public static io.gpupool.store.Mutation<GpuRequest> cancelling(String id, String principal,
                                                                  java.util.function.Supplier<Instant> clock) {
        return (before, changes) -> {
            GpuRequest request = Optional.ofNullable(before.queued().get(id)).or(() -> changes.findRequest(id))
                    .orElseThrow(() -> ProblemException.notFound("request", id));
            if (request.state() == RequestState.ENDED) {
                String lease = changes.findLease(String.valueOf(request.leaseId())).map(l -> " " + l.id() + " was " + l.state())
                        .orElse(" ended");
                throw ProblemException.conflict("Request " + id + " has ended: its lease" + lease + "; there is nothing to cancel");
            }
            if (request.state().isFinal()) {
                throw ProblemException.conflict("Request " + id + " is already " + request.state());
            }
            Instant now = clock.get();
            if (request.leaseId() != null) {
                Lease lease = before.lease(request.leaseId()).orElse(null);
                if (lease != null) {
                    Lease released = LeaseTransitions.end(lease, LeaseState.RELEASED, now);
                    changes.update(released).log(LoggedDecision.of(DecisionAction.RELEASE, id, lease.id(), lease.tenantId(),
                            List.of(), null, "CANCELLED_BY_OWNER", "Request cancelled; its lease is released"), now);
                }
            }
            GpuRequest cancelled = request.with(RequestState.CANCELLED, request.priority(), request.leaseId(), null, now);
            changes.update(cancelled).log(LoggedDecision.of(DecisionAction.CANCEL, id, request.leaseId(), request.tenantId(),
                    List.of(), null, "CANCELLED_BY_OWNER", "Cancelled by " + principal), now);
            return cancelled;
        };
    }

    /** Nothing queued and nothing reserved: a scheduling pass over the queues has nothing to do. */
    public boolean nothingWaits() {
        return workingSet.current().queued().isEmpty() && pipeline.reservations().isEmpty();
    }

    /** The decider and reservations of the active policy, for the scheduling steps. */
    public PolicyPipeline pipeline() {
        return pipeline;
    }

    /** Inside a running write: reserves again for the head of each pool's queue (backfill). */
    public Backfill.Reservations refreshReservations(PoolSnapshot before) {
        return pipeline.refreshReservations(before, clock.instant());
    }

    /**
     * Inside a running write: decides {@code queued} again on {@code before}, as a scheduling pass
     * does; null when it is no longer queued there.
     */
    public Outcome retry(PoolSnapshot before, Changes changes, GpuRequest queued, Instant now,
                  boolean widenHeld) {
        return pipeline.retry(before, changes, queued, now, widenHeld);
    }

    /**
     * Refuses what no state of the fleet could ever place, however long it waited: a gang member
     * larger than every node, or more whole-GPU members than all nodes together could hold
     * (members may share a node). Models, memory, pools and health are left to policy and the
     * allocator, which queue with a reason: those can change.
     */
    private static void requireFleetCanEverHost(NewRequest in, PoolSnapshot snapshot) {
        int perMember = in.gpus() / in.gangOrOne();
        int largestNode = snapshot.nodeSizes().largest();
        long membersTheFleetHolds = snapshot.nodeSizes().members(perMember);
        if (perMember > largestNode) {
            throw ProblemException.invalid("gpus: each gang member asks for " + perMember
                    + " GPUs but the largest node has " + largestNode + "; split the request into a larger gang");
        }
        if (in.milliOrWhole() == 1000 && in.gangOrOne() > membersTheFleetHolds) {
            throw ProblemException.invalid("gangSize: a gang of " + in.gangOrOne() + " members of " + perMember
                    + " GPUs cannot be placed: all nodes together hold at most " + membersTheFleetHolds + " such members");
        }
    }

    /** An Idempotency-Key names one ask: reusing it for a different ask is a client bug, not a retry. */
    private static void requireSameAsk(GpuRequest earlier, GpuRequest retried, String key) {
        if (!earlier.sameAskAs(retried)) {
            throw ProblemException.unprocessable("Idempotency-Key '" + io.gpupool.problem.FieldChecks.excerpt(key) + "' was used for a different request ("
                    + earlier.id() + ": " + earlier.gpus() + " × " + earlier.kind() + "); use a new key for a new request",
                    java.util.List.of());
        }
    }

    private static Outcome replay(PoolSnapshot snapshot, GpuRequest earlier, Optional<Lease> lease) {
        Outcome.Kind kind = switch (earlier.state()) {
            case PLACED -> Outcome.Kind.PLACED;
            case REJECTED -> Outcome.Kind.REJECTED;
            case CANCELLED, ENDED -> Outcome.Kind.ENDED;
            case QUEUED -> Outcome.Kind.QUEUED;
            case AWAITING_APPROVAL -> Outcome.Kind.AWAITING_APPROVAL;
        };
        return new Outcome(earlier, lease.orElse(null), kind,
                earlier.state() == RequestState.QUEUED ? QueueOrder.position(snapshot, earlier) : 0);
    }
}
