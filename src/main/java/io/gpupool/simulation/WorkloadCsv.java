package io.gpupool.simulation;

import io.gpupool.catalog.CardCatalog;

import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The generic workload format, for bringing one's own history (docs/policy-replay.md, "Generic CSV"):
 * one request per line, with columns {@code id, tenant, arrival, gpus} required and
 * {@code kind, priority_class, models, milli_per_gpu, gang_size, pool, preemptible, ttl_seconds,
 * runs_for_seconds, heartbeats_for_seconds, utilisation, cancelled_after_seconds} optional.
 * Every value is checked here, so a file that does not parse is refused with its line and column
 * before any replay starts.
 */
public final class WorkloadCsv {
    public static final List<String> REQUIRED = List.of("id", "tenant", "arrival", "gpus");
    private static final long MAX_SECONDS = 366L * 24 * 3600;

    private WorkloadCsv() {
    }

    /**
     * The jobs of {@code text} (named {@code file} in errors); the window runs from the first arrival
     * to {@code until}, or to the last arrival plus the longest run when null.
     */
    public static Workload parse(String file, String text, Instant until) {
        List<Job> jobs = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        CsvRows.read(file, text, REQUIRED, row -> {
            String id = row.text("id");
            if (!ids.add(id)) {
                throw new WorkloadInputException(file, row.line(), "id", "'" + CsvRows.excerpt(id) + "' appears twice");
            }
            jobs.add(job(row, id));
        });
        if (jobs.isEmpty()) {
            throw new WorkloadInputException(file, 0, null, "no requests: the file has a header and nothing else");
        }
        Instant from = jobs.stream().map(Job::arrival).min(Instant::compareTo).orElseThrow();
        Instant to = until != null ? until : jobs.stream().map(j -> j.arrival().plus(j.runsFor() == null ? Duration.ZERO : j.runsFor()))
                .max(Instant::compareTo).orElseThrow().plus(Duration.ofHours(1));
        if (!to.isAfter(from)) {
            throw new WorkloadInputException(file, 0, null, "the window ends at " + to + ", before the first arrival " + from);
        }
        return new Workload(jobs, from, to, file + ": " + jobs.size() + " requests");
    }

    private static Job job(CsvRows.Row row, String id) {
        String tenant = row.text("tenant");
        Instant arrival = row.instant("arrival");
        int gpus = (int) row.number("gpus", 1, 4096);
        WorkloadKind kind = kind(row);
        int milli = row.optionalNumber("milli_per_gpu", 1, 1000) == null ? 1000 : (int) (long) row.optionalNumber("milli_per_gpu", 1, 1000);
        if (milli < 1000 && gpus != 1) {
            throw new WorkloadInputException(row.file(), row.line(), "milli_per_gpu", "a fraction of a GPU is asked with gpus = 1, not " + gpus);
        }
        Long gang = row.optionalNumber("gang_size", 1, 4096);
        int gangSize = gang == null ? 1 : gang.intValue();
        if (gpus % gangSize != 0) {
            throw new WorkloadInputException(row.file(), row.line(), "gang_size", gangSize + " does not divide gpus " + gpus);
        }
        String models = row.optional("models");
        // The catalog's names, as the fleet keeps them ("T4-16G" is T4-PCIE-16G).
        List<String> allowed = models == null ? List.of() : Arrays.stream(models.split("\\|")).map(String::trim)
                .filter(m -> !m.isEmpty()).map(CardCatalog::canonical).toList();
        String preemptible = row.optional("preemptible");
        if (preemptible != null && !preemptible.equalsIgnoreCase("true") && !preemptible.equalsIgnoreCase("false")) {
            throw new WorkloadInputException(row.file(), row.line(), "preemptible", "true or false, was '" + CsvRows.excerpt(preemptible) + "'");
        }
        Long ttl = row.optionalNumber("ttl_seconds", 1, 90L * 24 * 3600);
        Long runs = row.optionalNumber("runs_for_seconds", 0, MAX_SECONDS);
        Long beats = row.optionalNumber("heartbeats_for_seconds", 0, MAX_SECONDS);
        Long cancelled = row.optionalNumber("cancelled_after_seconds", 0, MAX_SECONDS);
        GpuRequest ask = new GpuRequest(id, tenant, null, kind, gpus, milli, null, allowed, 0, List.of(), gangSize, "ANY", false,
                row.optional("pool"), row.optional("priority_class"), preemptible == null || Boolean.parseBoolean(preemptible),
                ttl == null ? 0 : ttl, RequestState.QUEUED, 0, null, null, arrival, arrival);
        return new Job(ask, arrival, runs == null ? null : Duration.ofSeconds(runs), beats == null ? null : Duration.ofSeconds(beats),
                row.fraction("utilisation"), cancelled == null ? null : arrival.plusSeconds(cancelled), row.file() + ":" + row.line());
    }

    private static WorkloadKind kind(CsvRows.Row row) {
        String value = row.optional("kind");
        if (value == null) {
            return WorkloadKind.TRAINING;
        }
        try {
            return WorkloadKind.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new WorkloadInputException(row.file(), row.line(), "kind", "one of " + Arrays.toString(WorkloadKind.values())
                    + ", was '" + CsvRows.excerpt(value) + "'");
        }
    }
}
