package io.gpupool.simulation;

import java.time.Instant;
import java.util.List;

/**
 * What a replay job's caller sees: its state, how far it is, and, once done, the summary rows and
 * the names of its files ({@code GET /api/v1/policies/replay/{id}/files/{name}}); {@code error} says
 * why a job failed.
 */
public record ReplayJob(String id, State state, double progress, String running, String workload, List<String> policies,
                        Instant submittedAt, Instant finishedAt, String error, List<ReplayReport.SummaryRow> summary,
                        List<String> files) {
    public enum State { QUEUED, RUNNING, DONE, FAILED, CANCELLED }
}
