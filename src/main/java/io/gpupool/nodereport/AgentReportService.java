package io.gpupool.nodereport;

import io.gpupool.telemetry.AgentPresence;

import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.MigInstance;
import io.gpupool.auth.Caller;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.NodeAgent;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;
import io.gpupool.store.WorkingSet;
import io.gpupool.problem.ProblemException;
import io.gpupool.telemetry.TelemetryWriter;
import io.gpupool.telemetry.ActivitySample;
import io.gpupool.telemetry.DeviceTelemetry;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.Map;

/**
 * Applies node agents' reports. A report that changes the inventory goes in ONE write through the
 * working set, all of it or nothing (docs/architecture.md, "A new inventory source"): new GPUs
 * appear, GPUs the report no longer shows go OFFLINE (their leases are then handled by the
 * reclamation rules), and changed properties update; each change is a decision-log entry (action
 * INVENTORY). A routine report — the same cards, the same properties, only newer readings
 * ({@link RoutineReports}) — does not touch the inventory: its node's presence and its activity
 * samples go to {@link TelemetryWriter}, which batches many reports in one transaction off the
 * lease path's writer (docs/performance.md, "Node agent ingest"). Either way the report is answered
 * once its rows committed, and its sequence number is remembered ({@link AgentPresence}), so a
 * report applied once is never applied again.
 */
@Singleton
public class AgentReportService {
    /** How long a report waits for its telemetry to commit before the agent is told to retry. */
    private static final long WRITE_TIMEOUT_SECONDS = 30;

    private final WorkingSet workingSet;
    private final DeviceTelemetry telemetry;
    private final TelemetryWriter writer;
    private final AgentPresence presence;
    private final Clock clock;

    AgentReportService(WorkingSet workingSet, DeviceTelemetry telemetry, TelemetryWriter writer, AgentPresence presence,
                       Clock clock) {
        this.workingSet = workingSet;
        this.telemetry = telemetry;
        this.writer = writer;
        this.presence = presence;
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
        NodeAgent agent = new NodeAgent(report.sequence(), at,
                report.intervalSeconds() == null ? 30 : report.intervalSeconds(), report.source());
        synchronized (presence.lockFor(report.node())) {
            PoolSnapshot current = workingSet.current();
            Applied applied = current.node(report.node())
                    .map(node -> refusedAsOld(report, presence.agentOf(node)))
                    .orElse(null);
            if (applied == null) {
                Optional<Map<String, String>> routine = RoutineReports.deviceOfUuid(current, report, at);
                applied = routine.isPresent()
                        ? new Applied(new ReportOutcome(report.node(), report.sequence(), true, "APPLIED", 0, 0, 0,
                        report.gpus().size(), List.of()), routine.get())
                        : workingSet.write((before, changes) -> reconcile(before, changes, report, agent, caller));
            }
            if (!applied.outcome().applied()) {
                return applied.outcome();
            }
            List<ActivitySample> samples = samples(report, at, applied.deviceOfUuid());
            awaitWritten(writer.submit(report.node(), agent, samples));
            presence.applied(report.node(), agent);
            samples.forEach(telemetry::record);
            return applied.outcome();
        }
    }

    /** The refusal of a sequence number already applied or older; null when the report is new. */
    private static Applied refusedAsOld(NodeReport report, NodeAgent last) {
        if (last == null || report.sequence() > last.sequence()) {
            return null;
        }
        String reason = report.sequence() == last.sequence() ? "ALREADY_APPLIED" : "OLDER_THAN_APPLIED";
        return new Applied(new ReportOutcome(report.node(), report.sequence(), false, reason, 0, 0, 0, 0,
                List.of("Sequence " + report.sequence() + (reason.equals("ALREADY_APPLIED") ? " was already applied"
                        : " is older than the last applied (" + last.sequence() + ")"))), Map.of());
    }

    private Applied reconcile(PoolSnapshot before, Changes changes, NodeReport report, NodeAgent agent, Caller caller) {
        Node node = before.node(report.node()).orElse(null);
        Applied old = node == null ? null : refusedAsOld(report, presence.agentOf(node));
        if (old != null) {
            return old;
        }
        NodeReconciler.Reconciled r = NodeReconciler.reconcile(before, changes, report, agent.lastReportAt(), clock.instant(),
                null, new NodeReconciler.Teller("by its agent (" + caller.name() + ")", agent, false, null));
        return new Applied(r.outcome(), r.deviceOfUuid());
    }

    private static void awaitWritten(CompletableFuture<Void> written) {
        try {
            written.get(WRITE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw notWritten(e);
        } catch (ExecutionException | TimeoutException e) {
            throw notWritten(e);
        }
    }

    private static ProblemException notWritten(Exception cause) {
        return new ProblemException(ProblemException.Kind.UNAVAILABLE, "Not written",
                "The report's telemetry was not written (" + (cause.getCause() == null ? cause : cause.getCause())
                        + "); send the report again", List.of());
    }

    /** The report's activity readings, per GPU and MIG instance, for the devices they now belong to. */
    private static List<ActivitySample> samples(NodeReport report, Instant at, Map<String, String> deviceOfUuid) {
        String source = report.source() == null ? "agent" : report.source();
        List<ActivitySample> out = new ArrayList<>();
        for (Gpu g : report.gpus()) {
            String deviceId = deviceOfUuid.get(g.uuid());
            if (deviceId == null) {
                continue;
            }
            if (g.activity() != null) {
                out.add(new ActivitySample(deviceId, null, null, at, g.activity().metric(), g.activity().value(),
                        g.activity().framebufferUsedMib(), source));
            }
            for (MigInstance m : g.migInstances()) {
                if (m.activity() != null) {
                    out.add(new ActivitySample(deviceId, m.profile(), m.gpuInstanceId(), at, m.activity().metric(),
                            m.activity().value(), m.activity().framebufferUsedMib(), source));
                }
            }
        }
        return out;
    }
}
