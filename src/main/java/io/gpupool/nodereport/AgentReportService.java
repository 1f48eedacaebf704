package io.gpupool.nodereport;

import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.MigInstance;
import io.gpupool.auth.Caller;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.NodeAgent;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;
import io.gpupool.store.WorkingSet;
import io.gpupool.telemetry.ActivitySample;
import io.gpupool.telemetry.DeviceTelemetry;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

/**
 * Applies node agents' reports to the inventory: each report in ONE write through the working set,
 * all of it or nothing (docs/architecture.md, "A new inventory source"). New GPUs appear, GPUs the
 * report no longer shows go OFFLINE (their leases are then handled by the reclamation rules), and
 * changed properties update; each change is a decision-log entry (action INVENTORY). The node
 * remembers the report's sequence number, so a report applied once is never applied again.
 * Activity readings go to {@link DeviceTelemetry} once the write committed.
 */
@Singleton
public class AgentReportService {
    private final WorkingSet workingSet;
    private final DeviceTelemetry telemetry;
    private final Clock clock;

    AgentReportService(WorkingSet workingSet, DeviceTelemetry telemetry, Clock clock) {
        this.workingSet = workingSet;
        this.telemetry = telemetry;
        this.clock = clock;
    }

    private record Applied(ReportOutcome outcome, Map<String, String> deviceOfUuid) {
    }

    /** Applies a report body as the agent sent it (JSON). */
    public ReportOutcome apply(String body, Caller caller) {
        return apply(ReportJson.parse(body), caller);
    }

    public ReportOutcome apply(NodeReport report, Caller caller) {
        if (report == null) {
            throw io.gpupool.problem.ProblemException.invalid("A report body is required (what 'gpupool agent --once --print' prints)");
        }
        if (report.node() != null) {
            caller.requireReportFor(report.node()); // before any other answer: nothing is learned about others' nodes
        }
        Instant now = clock.instant();
        ReportChecks.check(report, now);
        caller.requireReportFor(report.node());
        Instant at = report.at().truncatedTo(ChronoUnit.MICROS);
        Applied applied = workingSet.write((before, changes) -> reconcile(before, changes, report, at, caller));
        if (applied.outcome().applied()) {
            record(report, at, applied.deviceOfUuid());
        }
        return applied.outcome();
    }

    private Applied reconcile(PoolSnapshot before, Changes changes, NodeReport report, Instant at, Caller caller) {
        Node node = before.node(report.node()).orElse(null);
        if (node != null && node.agent() != null && report.sequence() <= node.agent().sequence()) {
            String reason = report.sequence() == node.agent().sequence() ? "ALREADY_APPLIED" : "OLDER_THAN_APPLIED";
            return new Applied(new ReportOutcome(report.node(), report.sequence(), false, reason, 0, 0, 0, 0,
                    List.of("Sequence " + report.sequence() + (reason.equals("ALREADY_APPLIED") ? " was already applied"
                            : " is older than the last applied (" + node.agent().sequence() + ")"))), Map.of());
        }
        NodeAgent agent = new NodeAgent(report.sequence(), at,
                report.intervalSeconds() == null ? 30 : report.intervalSeconds(), report.source());
        NodeReconciler.Reconciled r = NodeReconciler.reconcile(before, changes, report, at, clock.instant(), null,
                new NodeReconciler.Teller("by its agent (" + caller.name() + ")", agent, false, null));
        return new Applied(r.outcome(), r.deviceOfUuid());
    }

    /** The report's activity readings, per GPU and MIG instance, for the devices they now belong to. */
    private void record(NodeReport report, Instant at, Map<String, String> deviceOfUuid) {
        String source = report.source() == null ? "agent" : report.source();
        for (Gpu g : report.gpus()) {
            String deviceId = deviceOfUuid.get(g.uuid());
            if (deviceId == null) {
                continue;
            }
            if (g.activity() != null) {
                telemetry.record(new ActivitySample(deviceId, null, null, at, g.activity().metric(), g.activity().value(),
                        g.activity().framebufferUsedMib(), source));
            }
            for (MigInstance m : g.migInstances()) {
                if (m.activity() != null) {
                    telemetry.record(new ActivitySample(deviceId, m.profile(), m.gpuInstanceId(), at, m.activity().metric(),
                            m.activity().value(), m.activity().framebufferUsedMib(), source));
                }
            }
        }
    }
}
