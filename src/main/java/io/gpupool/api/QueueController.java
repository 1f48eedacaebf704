package io.gpupool.api;

import io.gpupool.audit.DecisionLog;
import io.gpupool.audit.LoggedDecision;
import io.gpupool.auth.Allow;
import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.problem.ProblemException;
import io.gpupool.request.GpuRequest;
import io.gpupool.request.QueueOrder;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;

import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The queues (per pool, in policy order, with reasons) and the decision log. */
@Controller("/api/v1")
public class QueueController {
    private final WorkingSet workingSet;
    private final DecisionLog decisions;
    private final Clock clock;

    QueueController(WorkingSet workingSet, DecisionLog decisions, Clock clock) {
        this.workingSet = workingSet;
        this.decisions = decisions;
        this.clock = clock;
    }

    public record QueueEntry(int position, GpuRequest request) {
    }

    @Get("/queues")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    public Map<String, List<QueueEntry>> queues(Caller caller) {
        PoolSnapshot snapshot = workingSet.current();
        Map<String, List<QueueEntry>> byPool = new LinkedHashMap<>();
        int position = 0;
        for (GpuRequest r : QueueOrder.ordered(snapshot)) {
            position++;
            if (!caller.reaches(r.tenantId(), snapshot)) {
                continue;
            }
            String pool = r.whyPending() != null && r.whyPending().pool() != null ? r.whyPending().pool()
                    : r.poolId() != null ? r.poolId() : "unassigned";
            byPool.computeIfAbsent(pool, k -> new ArrayList<>()).add(new QueueEntry(position, r));
        }
        return byPool;
    }

    @Get("/decisions")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT})
    public List<LoggedDecision> decisions(@Nullable @QueryValue String request, @Nullable @QueryValue String lease,
                                          @Nullable @QueryValue String since, Caller caller) {
        List<LoggedDecision> found;
        if (request != null) {
            found = decisions.forRequest(request);
        } else if (lease != null) {
            found = decisions.forLease(lease);
        } else {
            found = decisions.since(since == null ? clock.instant().minusSeconds(3600) : parse(since));
        }
        PoolSnapshot snapshot = workingSet.current();
        return found.stream().filter(d -> d.tenantId() == null || caller.reaches(d.tenantId(), snapshot)).toList();
    }

    private static Instant parse(String since) {
        try {
            return Instant.parse(since);
        } catch (DateTimeParseException e) {
            throw ProblemException.invalid("since: an ISO-8601 instant such as 2026-01-05T12:00:00Z, was '" + since + "'");
        }
    }
}
