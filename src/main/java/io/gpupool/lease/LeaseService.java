package io.gpupool.lease;

import io.gpupool.domain.lease.UsageReport;
import io.gpupool.domain.lease.LeaseTransitions;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.auth.Caller;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Mutation;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Instant;
import java.util.function.Supplier;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Lease operations of the holder: renew, release, heartbeat with usage; and listing. */
@Singleton
public class LeaseService {
    private final WorkingSet workingSet;
    private final UsageRecorder usage;
    private final Clock clock;

    LeaseService(WorkingSet workingSet, UsageRecorder usage, Clock clock) {
        this.workingSet = workingSet;
        this.usage = usage;
        this.clock = clock;
    }

    public Lease get(String id, Caller caller) {
        Lease lease = workingSet.current().lease(id).or(() -> workingSet.read(s -> s.findLease(id)))
                .orElseThrow(() -> ProblemException.notFound("lease", id));
        caller.requireReach(lease.tenantId(), workingSet.current());
        return lease;
    }

    public List<Lease> list(String tenant, LeaseState state, Caller caller) {
        PoolSnapshot snapshot = workingSet.current();
        if (tenant != null) {
            snapshot.tenant(tenant).orElseThrow(() -> ProblemException.notFound("tenant", tenant));
            caller.requireReach(tenant, snapshot);
        }
        return workingSet.read(s -> s.findLeases(tenant, state == null ? null : state.name())).stream()
                .filter(l -> caller.reaches(l.tenantId(), snapshot)).toList();
    }

    public Lease release(String id, Caller caller) {
        get(id, caller);
        Lease released = workingSet.write(releasing(id, caller.principal(), clock::instant));
        usage.forget(id);
        return released;
    }

    /**
     * The holder's release as a write: the lease ends RELEASED, logged, and its request ends with it.
     * The live service and the policy replay's simulated holders release with this same write.
     */
    public static Mutation<Lease> releasing(String id, String principal, Supplier<Instant> clock) {
        return (before, changes) -> {
            Lease lease = held(before, id, () -> changes.findLease(id).orElse(null));
            Instant now = clock.get();
            Lease ended = LeaseTransitions.end(lease, LeaseState.RELEASED, now);
            changes.update(ended).log(LoggedDecision.of(DecisionAction.RELEASE, lease.requestId(), id, lease.tenantId(),
                    List.of(), null, "RELEASED_BY_HOLDER", "Released by " + principal), now);
            changes.endRequestOf(ended, now);
            return ended;
        };
    }

    /** Extends the TTL by {@code ttlSeconds} from now; only an ACTIVE lease can be renewed. */
    public Lease renew(String id, long ttlSeconds, Caller caller) {
        if (ttlSeconds <= 0 || ttlSeconds > 90L * 24 * 3600) {
            throw ProblemException.invalid("ttlSeconds: must be between 1 and " + 90L * 24 * 3600 + ", was " + ttlSeconds);
        }
        get(id, caller);
        return workingSet.write((before, changes) -> {
            Lease lease = held(before, id, () -> changes.findLease(id).orElse(null));
            if (lease.state() != LeaseState.ACTIVE) {
                throw ProblemException.conflict("Lease " + id + " is " + lease.state() + " (deadline "
                        + lease.deadline() + "); it cannot be renewed");
            }
            Instant now = clock.instant();
            if (lease.expiresAt() != null && !lease.expiresAt().isAfter(now)) {
                throw ProblemException.conflict("Lease " + id + " expired at " + lease.expiresAt());
            }
            Lease renewed = LeaseTransitions.renewed(lease, now.plusSeconds(ttlSeconds));
            changes.update(renewed).log(LoggedDecision.of(DecisionAction.RENEW, lease.requestId(), id, lease.tenantId(),
                    List.of(), null, "RENEWED", "TTL extended to " + renewed.expiresAt()), now);
            return renewed;
        });
    }

    public Lease heartbeat(String id, UsageReport report, Caller caller) {
        get(id, caller);
        Instant now = clock.instant();
        // A reported time is kept to the microsecond, as its row keeps it.
        Instant at = report == null || report.at() == null ? now : report.at().truncatedTo(ChronoUnit.MICROS);
        if (at.isAfter(now.plusSeconds(300))) {
            throw ProblemException.invalid("Heartbeat time " + at + " is in the future (server time " + now + ")");
        }
        Lease updated = workingSet.write((before, changes) -> {
            Lease lease = held(before, id, () -> changes.findLease(id).orElse(null));
            if (at.isBefore(lease.createdAt().minusSeconds(300))) {
                throw ProblemException.invalid("Heartbeat time " + at + " is before lease " + id + " was granted ("
                        + lease.createdAt() + ")");
            }
            Set<String> devices = new HashSet<>();
            lease.shares().forEach(s -> devices.add(s.deviceId()));
            List<UsageReport.GpuUsage> gpus = report == null || report.gpus() == null ? List.of() : report.gpus();
            for (int i = 0; i < gpus.size(); i++) {
                UsageReport.GpuUsage g = gpus.get(i);
                if (g == null) {
                    throw ProblemException.invalid("gpus[" + i + "]: a GPU's usage {deviceId, utilisationPercent, memoryUsedMib}, was null");
                }
                if (!devices.contains(g.deviceId())) {
                    throw ProblemException.invalid("Device '" + io.gpupool.problem.FieldChecks.excerpt(g.deviceId()) + "' is not part of lease " + id);
                }
                double pct = g.utilisationPercent() == null ? -1 : g.utilisationPercent();
                if (pct < 0 || pct > 100) {
                    throw ProblemException.invalid("utilisationPercent of " + g.deviceId() + " must be 0..100, was " + pct);
                }
                long mem = g.memoryUsedMib() == null ? 0 : g.memoryUsedMib();
                if (mem < 0) {
                    throw ProblemException.invalid("memoryUsedMib of " + g.deviceId() + " must be >= 0");
                }
                changes.recordUsage(id, g.deviceId(), at, pct / 100.0, mem);
            }
            // A late heartbeat (a retry, a buffered sample) never makes the holder look silent for longer.
            Lease beat = LeaseTransitions.heartbeat(lease,
                    lease.lastHeartbeat() != null && lease.lastHeartbeat().isAfter(at) ? lease.lastHeartbeat() : at);
            changes.update(beat);
            return beat;
        });
        if (report != null && report.gpus() != null && !report.gpus().isEmpty()) {
            usage.record(id, at, report.gpus().stream().mapToDouble(g -> g.utilisationPercent() / 100.0).average().orElse(0));
        }
        return updated;
    }

    /** The lease if it still holds devices; 409 when it ended, 404 when unknown. */
    private static Lease held(PoolSnapshot snapshot, String id, java.util.function.Supplier<Lease> stored) {
        return snapshot.lease(id).orElseThrow(() -> {
            Lease ended = stored.get(); // the database only when the snapshot does not hold it
            return ended == null ? ProblemException.notFound("lease", id)
                    : ProblemException.conflict("Lease " + id + " is " + ended.state() + "; it no longer holds GPUs");
        });
    }
}
