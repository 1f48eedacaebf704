package io.gpupool.simulation;

import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.request.GpuRequest;

import java.time.Instant;
import java.util.List;

/**
 * What is known of one job of a replay so far, filled in as its decisions stream past (placed,
 * ended, refused, held); the run's event loop sets the outcome and lost GPU-hours it learns of.
 */
final class JobFateBuilder {
    final Job job;
    JobFate.Outcome outcome = JobFate.Outcome.QUEUED;
    Instant placedAt;
    String model;
    JobFate.End end;
    Instant endedAt;
    List<String> ruleNames = List.of();
    String policyVersion;
    String reasonCode;
    String message;
    double lostGpuHours;
    Lease lease;

    JobFateBuilder(Job job) {
        this.job = job;
    }

    void explain(List<String> rules, String version, String reason, String text) {
        this.ruleNames = rules;
        this.policyVersion = version;
        this.reasonCode = reason;
        this.message = text;
    }

    void placed(Instant at, String placedOn, Lease placed, LoggedDecision d) {
        outcome = JobFate.Outcome.PLACED;
        lease = placed;
        placedAt = at;
        model = placedOn;
        explain(d.ruleNames(), d.policyVersion(), d.reasonCode(), d.message());
    }

    void end(JobFate.End how, Instant at, LoggedDecision d) {
        end = how;
        endedAt = at;
        if (d != null && how != JobFate.End.RELEASED) {
            explain(d.ruleNames(), d.policyVersion(), d.reasonCode(), d.message());
        }
    }

    JobFate build(Instant windowEnd) {
        GpuRequest ask = job.ask();
        JobFate.End how = outcome == JobFate.Outcome.PLACED && end == null ? JobFate.End.HELD_AT_END : end;
        String shownModel = model != null ? model : ask.allowedModels().isEmpty() ? "any" : String.join("|", ask.allowedModels());
        return new JobFate(job.id(), ask.tenantId(), ask.kind(), ask.priorityClass() == null ? "default" : ask.priorityClass(),
                job.gpuAmount(), job.arrival(), outcome, placedAt, shownModel, how, how == JobFate.End.HELD_AT_END ? windowEnd : endedAt,
                ruleNames, policyVersion, reasonCode, message, lostGpuHours, lease);
    }
}
