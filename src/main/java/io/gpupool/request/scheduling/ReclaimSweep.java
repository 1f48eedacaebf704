package io.gpupool.request.scheduling;

import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.domain.lease.Notice;
import io.gpupool.domain.lease.UsageSample;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.lease.UsageRecorder;
import io.gpupool.policy.decision.ReclaimCause;
import io.gpupool.policy.decision.ReclaimOrder;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.engine.ReclaimRules;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.fact.UsageWindow;
import io.gpupool.request.input.PolicyInputs;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The policy's reclamation sweep, on whichever model: the usage it reads, the policy's evaluation
 * and its reclaim plan enforced (notice, or the end now for TTL and broken hardware). The live
 * scheduler ({@link LifecycleScheduler}), the dry-run and the replay all run this code.
 */
final class ReclaimSweep {
    private static final Logger LOG = LoggerFactory.getLogger(ReclaimSweep.class);

    private ReclaimSweep() {
    }

    /**
     * The usage samples a sweep reads: what holders said in their heartbeats and what node agents
     * measured on the leases' own GPUs (the facts trust the measurement wherever there is one).
     * The live sweep and the dry-run's both take them from here.
     */
    static List<io.gpupool.domain.lease.UsageSample> usageOf(PoolSnapshot snapshot, UsageRecorder usage,
                                                             io.gpupool.telemetry.DeviceTelemetry telemetry, Instant now) {
        List<io.gpupool.domain.lease.UsageSample> samples = new java.util.ArrayList<>(usage.all());
        samples.addAll(telemetry.leaseSamples(snapshot.leases().values(), now));
        return samples;
    }

    /**
     * The sweep on whichever model, with the usage samples it is given (the live sweep gives those
     * {@link UsageRecorder} keeps): returns the evaluation, whose reclaim plan it enforced (none
     * when the policy failed).
     */
    static Evaluation sweep(ModelWriter model, PolicyEngine engine, CompiledPolicy policy, Collection<UsageSample> usage,
                            Duration grace, Instant now) {
        return sweep(model, engine, policy, SnapshotFacts.of(model.current(), now, usage, UsageWindow.DEFAULT), grace, now);
    }

    /**
     * The same sweep on facts already derived for the model's current snapshot at {@code now} with the
     * usage samples it sees ({@code SnapshotFacts.of(model.current(), now, usage, UsageWindow.DEFAULT)}):
     * a dry-run derives them once for both of its sides.
     */
    static Evaluation sweep(ModelWriter model, PolicyEngine engine, CompiledPolicy policy, SnapshotFacts facts,
                            Duration grace, Instant now) {
        return sweep(model, engine, policy, facts, grace, now, false);
    }

    /** Which of a sweep's facts its rule session gets. */
    enum Inserted {
        /** Every fact, the pending requests too, whatever the rules read (the replay's baseline for comparison). */
        ALL,
        /**
         * The pending requests left out where no reclaiming rule reads them
         * ({@link ReclaimRules#readNoRequest(CompiledPolicy)}); the devices kept: a dry-run compares
         * the sweeps' tiers and labels, which rules on the devices decide.
         */
        DEVICES_KEPT,
        /**
         * The pending requests, and the devices too, left out where the compiled rules show no
         * reclaiming rule reads them ({@link ReclaimRules#readNoDevice(CompiledPolicy)}): the plan, all a
         * sweep enforces, is the same, without a rule session over every queued request nor the tiering
         * and labelling rules firing on every device at every sweep.
         */
        WHAT_RECLAIMING_RULES_READ
    }

    /**
     * As above; {@code requestsAlways} true inserts every fact ({@link Inserted#ALL}: the replay compares
     * both ways), false only what the reclaiming rules read ({@link Inserted#WHAT_RECLAIMING_RULES_READ}).
     */
    static Evaluation sweep(ModelWriter model, PolicyEngine engine, CompiledPolicy policy, SnapshotFacts facts,
                            Duration grace, Instant now, boolean requestsAlways) {
        return sweep(model, engine, policy, facts, grace, now,
                requestsAlways ? Inserted.ALL : Inserted.WHAT_RECLAIMING_RULES_READ, WritesInParts.CHANGES_PER_WRITE);
    }

    /** As above, {@code changesPerWrite} reclaim orders a write (tests compare with one a write). */
    static Evaluation sweep(ModelWriter model, PolicyEngine engine, CompiledPolicy policy, SnapshotFacts facts,
                            Duration grace, Instant now, boolean requestsAlways, int changesPerWrite) {
        return sweep(model, engine, policy, facts, grace, now,
                requestsAlways ? Inserted.ALL : Inserted.WHAT_RECLAIMING_RULES_READ, changesPerWrite);
    }

    /** As above, with {@code inserted} saying which facts the rule session gets. */
    static Evaluation sweep(ModelWriter model, PolicyEngine engine, CompiledPolicy policy, SnapshotFacts facts,
                            Duration grace, Instant now, Inserted inserted, int changesPerWrite) {
        PoolSnapshot snapshot = model.current();
        if (facts.snapshot() != snapshot || !facts.now().equals(now)) {
            throw new IllegalArgumentException("The sweep's facts were derived for another snapshot or instant");
        }
        List<io.gpupool.policy.fact.RequestFact> pending = inserted != Inserted.ALL && ReclaimRules.readNoRequest(policy)
                ? List.of() : snapshot.queued().values().stream().map(PolicyInputs::fact).toList();
        boolean withDevices = inserted != Inserted.WHAT_RECLAIMING_RULES_READ || !ReclaimRules.readNoDevice(policy);
        Evaluation evaluation = engine.sweep(policy, facts, pending, withDevices);
        if (!evaluation.ok()) {
            LOG.error("Reclamation sweep not enforced: the policy failed: {}", evaluation.errors());
            return evaluation;
        }
        WritesInParts.inParts(model, evaluation.reclaimPlan(), changesPerWrite, part -> (before, changes) -> {
            LastInstantText deadlines = new LastInstantText();
            for (ReclaimOrder order : part) {
                reclaim(before, changes, order, grace, now, deadlines);
            }
            return part.size();
        });
        return evaluation;
    }

    /** One reclaim order: TTL and broken hardware end the lease now, anything else gives it notice. */
    private static Lease reclaim(PoolSnapshot before, Changes changes, ReclaimOrder order, Duration grace, Instant now,
                                 LastInstantText deadlines) {
        Lease lease = before.lease(order.leaseId()).orElse(null);
        if (lease == null || lease.state() != LeaseState.ACTIVE) {
            return null;
        }
        boolean immediate = order.cause() == ReclaimCause.TTL_EXPIRED || order.cause() == ReclaimCause.UNHEALTHY_DEVICE;
        Lease changed = immediate ? LeaseTransitions.end(lease,
                order.cause() == ReclaimCause.TTL_EXPIRED ? LeaseState.EXPIRED : LeaseState.RECLAIMED, now)
                : LeaseTransitions.notice(lease, now.plus(grace),
                new Notice(null, List.of(order.ruleName()), order.policyVersion(), order.reasonCode()));
        changes.update(changed);
        DecisionAction action = order.cause() == ReclaimCause.TTL_EXPIRED ? DecisionAction.EXPIRE
                : immediate ? DecisionAction.RECLAIM : DecisionAction.NOTICE;
        LoggedDecision logged = LoggedDecision.of(action, lease.requestId(), lease.id(), lease.tenantId(),
                List.of(order.ruleName()), order.policyVersion(), order.reasonCode(), order.message()
                        + (immediate ? "" : "; GPUs are taken at " + deadlines.of(changed.deadline())));
        changes.log(order.idleSeconds() < 0 ? logged : logged.withIdleSince(now.minusSeconds(order.idleSeconds())), now);
        if (order.cause() == ReclaimCause.UNHEALTHY_DEVICE) {
            requeue(changes, lease, order, now);
        } else if (immediate) {
            changes.endRequestOf(changed, now);
        }
        return changed;
    }

    /** Work lost to broken hardware goes back to the queue under its original request. */
    private static void requeue(Changes changes, Lease lease, ReclaimOrder order, Instant now) {
        changes.findRequest(lease.requestId()).filter(r -> r.state() == RequestState.PLACED).ifPresent(r -> {
            WhyPending why = new WhyPending(BlockedBy.CAPACITY, order.ruleName(), "REQUEUED_AFTER_DEVICE_FAILURE",
                    "Its lease " + lease.id() + " lost a device; waiting for healthy capacity", 0, lease.poolId(), null);
            GpuRequest again = r.with(RequestState.QUEUED, r.priority(), null, why, now);
            changes.update(again).log(LoggedDecision.of(DecisionAction.QUEUE, r.id(), lease.id(), r.tenantId(),
                    List.of(order.ruleName()), order.policyVersion(), why.reasonCode(), why.message()), now);
        });
    }
}
