package io.gpupool.simulation;

import io.gpupool.audit.DecisionLog;
import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;
import io.gpupool.store.WorkingSet;
import io.gpupool.store.row.UsageSampleRepository;
import io.gpupool.store.row.UsageSampleRow;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The service's own history as a replay: the requests that arrived in a window, as they were asked,
 * each with what its owner did — when its holder released the lease (so how long its job really
 * ran), when it stopped heartbeating, the utilisation it reported, whether it gave up waiting — read
 * from the decision log, the requests and leases, and the usage samples. The fleet is the one the
 * service holds now (inventory and tenancy changes during the window are not replayed); the window
 * starts with no lease held and no request queued (docs/policy-replay.md, "Recorded history").
 */
@Singleton
public class RecordedHistory {
    private static final int PAGE = 1_000;

    private final WorkingSet workingSet;
    private final DecisionLog decisions;
    private final UsageSampleRepository usage;
    private final Clock clock;

    RecordedHistory(WorkingSet workingSet, DecisionLog decisions, UsageSampleRepository usage, Clock clock) {
        this.workingSet = workingSet;
        this.decisions = decisions;
        this.usage = usage;
        this.clock = clock;
    }

    /** What a history replay runs: the fleet, the workload, and the decisions that were logged (for fidelity). */
    public record Recorded(PoolSnapshot fleet, Workload workload, List<LoggedDecision> logged) {
    }

    public Recorded window(Instant from, Instant to) {
        if (from == null || to == null || !to.isAfter(from)) {
            throw ProblemException.invalid("history: 'from' and 'to' are required, 'from' before 'to'");
        }
        Instant now = clock.instant();
        if (to.isAfter(now)) {
            throw ProblemException.invalid("history: the window ends at " + to + ", after now (" + now + "); nothing is recorded there yet");
        }
        List<LoggedDecision> logged = read(from, to);
        Map<String, Instant> arrival = new LinkedHashMap<>();
        Map<String, Instant> released = new HashMap<>(); // lease → when its holder (or owner's cancel) gave it back
        Map<String, Instant> cancelledQueued = new HashMap<>();
        Map<String, String> leaseOf = new HashMap<>();
        for (LoggedDecision d : logged) {
            if (d.requestId() != null && (d.action() == DecisionAction.ADMIT || d.action() == DecisionAction.QUEUE
                    || d.action() == DecisionAction.REJECT)) {
                arrival.putIfAbsent(d.requestId(), d.at());
            }
            if (d.action() == DecisionAction.ADMIT && d.leaseId() != null) {
                leaseOf.putIfAbsent(d.requestId(), d.leaseId());
            } else if (d.action() == DecisionAction.RELEASE && d.leaseId() != null) {
                released.put(d.leaseId(), d.at());
            } else if (d.action() == DecisionAction.CANCEL && d.leaseId() == null) {
                cancelledQueued.put(d.requestId(), d.at());
            }
        }
        if (arrival.isEmpty()) {
            throw ProblemException.invalid("history: no request arrived between " + from + " and " + to
                    + "; the window is outside the recorded history");
        }
        Map<String, double[]> utilisation = meanUtilisation(from, to);
        List<Job> jobs = new ArrayList<>();
        for (Map.Entry<String, Instant> a : arrival.entrySet()) {
            GpuRequest recorded = workingSet.read(s -> s.findRequest(a.getKey())).orElse(null);
            if (recorded == null || recorded.createdAt().isBefore(from)) {
                continue; // it arrived before the window: its fate is not the window's to replay
            }
            GpuRequest ask = recorded.with(RequestState.QUEUED, 0, null, null, recorded.createdAt());
            String leaseId = leaseOf.get(recorded.id());
            Lease lease = leaseId == null ? null : workingSet.read(s -> s.findLease(leaseId)).orElse(null);
            Duration runsFor = null;
            Duration heartbeatsFor = null;
            if (lease != null && released.containsKey(lease.id())) {
                runsFor = Duration.between(lease.createdAt(), released.get(lease.id()));
            }
            if (lease != null && lease.lastHeartbeat() != null && !lease.state().holdsDevices()
                    && !released.containsKey(lease.id())) {
                heartbeatsFor = Duration.between(lease.createdAt(), lease.lastHeartbeat()); // ended by policy: when was it last heard?
            }
            double[] u = lease == null ? null : utilisation.get(lease.id());
            jobs.add(new Job(ask, recorded.createdAt(), runsFor, heartbeatsFor, u == null ? Double.NaN : u[0] / u[1],
                    cancelledQueued.get(recorded.id()), "request " + recorded.id()));
        }
        return new Recorded(emptied(workingSet.current(), from), new Workload(jobs, from, to,
                "history " + from + ".." + to + ": " + jobs.size() + " requests"), logged);
    }

    private List<LoggedDecision> read(Instant from, Instant to) {
        List<LoggedDecision> all = new ArrayList<>();
        long after = 0;
        while (true) {
            List<LoggedDecision> page = decisions.since(from, after, PAGE);
            for (LoggedDecision d : page) {
                if (!d.at().isAfter(to)) {
                    all.add(d);
                }
            }
            if (page.size() < PAGE) {
                return all;
            }
            after = page.get(page.size() - 1).id();
        }
    }

    /** lease → {sum, count} of the utilisation its samples reported in the window. */
    private Map<String, double[]> meanUtilisation(Instant from, Instant to) {
        Map<String, double[]> out = new HashMap<>();
        for (UsageSampleRow s : usage.findByAtGreaterThanEquals(from)) {
            if (!s.at().isAfter(to)) {
                double[] acc = out.computeIfAbsent(s.leaseId(), k -> new double[2]);
                acc[0] += s.utilisation();
                acc[1]++;
            }
        }
        return out;
    }

    /** The fleet with no lease held and no request queued: where the window's replay starts. */
    private static PoolSnapshot emptied(PoolSnapshot now, Instant from) {
        Changes changes = Changes.uncommitted(now);
        for (Lease l : now.leases().values()) {
            changes.update(io.gpupool.domain.lease.LeaseTransitions.end(l, io.gpupool.domain.lease.LeaseState.RELEASED, from));
        }
        for (GpuRequest r : now.queued().values()) {
            changes.update(r.with(RequestState.CANCELLED, r.priority(), null, null, r.updatedAt()));
        }
        return changes.after();
    }
}
