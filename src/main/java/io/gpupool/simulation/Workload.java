package io.gpupool.simulation;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/**
 * What a replay replays: the jobs in arrival order over the window {@code from}..{@code to} (the
 * simulation stops at {@code to}; whatever is still queued or held then is reported so), and what
 * the workload is, in words.
 */
public record Workload(List<Job> jobs, Instant from, Instant to, String description) {
    public Workload {
        jobs = jobs.stream().sorted(Comparator.comparing(Job::arrival)).toList();
        if (to.isBefore(from)) {
            throw new IllegalArgumentException("The window ends (" + to + ") before it starts (" + from + ")");
        }
    }
}
