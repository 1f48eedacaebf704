package io.gpupool.api;

import io.gpupool.audit.DecisionLog;
import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.auth.Allow;
import io.gpupool.auth.Caller;
import io.swagger.v3.oas.annotations.Parameter;
import io.gpupool.auth.Role;
import io.gpupool.problem.ProblemException;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.request.input.QueueOrder;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.uri.UriBuilder;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;

import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The queues (per pool, in policy order, with reasons) and the decision log. */
@Controller("/api/v1")
public class QueueController {
    /** The most decision log entries one answer holds. */
    static final int MAX_DECISIONS = Page.MAX_SIZE;
    /** The longest part of a rule name the log can be filtered by (rule names are sentences). */
    static final int MAX_RULE_FILTER = 256;
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
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public Map<String, List<QueueEntry>> queues(@Parameter(hidden = true) Caller caller) {
        PoolSnapshot snapshot = workingSet.current();
        Map<String, List<QueueEntry>> byPool = new LinkedHashMap<>();
        Map<String, Integer> lengths = new HashMap<>();
        for (GpuRequest r : QueueOrder.ordered(snapshot)) {
            String pool = QueueOrder.queueOf(r);
            int position = lengths.merge(pool, 1, Integer::sum); // others' requests count, though not shown
            if (caller.reaches(r.tenantId(), snapshot)) {
                byPool.computeIfAbsent(pool, k -> new ArrayList<>()).add(new QueueEntry(position, r));
            }
        }
        return byPool;
    }

    /**
     * The decision log in log order (the order entries committed in): a request's or a lease's
     * entries (both: those of the request on that lease), else every entry since {@code since}
     * (default: the last hour, fixed in the next-page link). Paged by cursor, as
     * the log only grows: at most {@code limit} entries after the entry {@code after}; when the page
     * is full, a {@code Link: <...>; rel="next"} header gives the next page. A tenant sees only its
     * own entries, so its page may hold fewer; the cursor still moves past the others. {@code tenant},
     * {@code action}, {@code rule} (a part of a rule name, any case) and {@code until} narrow each
     * page the same way: the cursor moves over what they leave out.
     */
    @Get("/decisions")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public HttpResponse<List<LoggedDecision>> decisions(@Nullable @QueryValue String request, @Nullable @QueryValue String lease,
                                                        @Nullable @QueryValue String since, @Nullable @QueryValue Long after,
                                                        @Nullable @QueryValue Integer limit, @Nullable @QueryValue String tenant,
                                                        @Nullable @QueryValue DecisionAction action, @Nullable @QueryValue String rule,
                                                        @Nullable @QueryValue String until, @Parameter(hidden = true) Caller caller,
                                                        HttpRequest<?> http) {
        int max = limit == null ? MAX_DECISIONS : limit;
        if (max < 1 || max > MAX_DECISIONS) {
            throw ProblemException.invalid("limit must be between 1 and " + MAX_DECISIONS + ", was " + max);
        }
        long afterId = after == null ? 0 : after;
        if (afterId < 0) {
            throw ProblemException.invalid("after: the id of a decision log entry (>= 0), was " + afterId);
        }
        boolean byEntity = request != null || lease != null;
        Instant from = since != null ? parse("since", since) : byEntity ? null : clock.instant().minusSeconds(3600);
        Instant to = until == null ? null : parse("until", until);
        if (rule != null && rule.length() > MAX_RULE_FILTER) {
            throw ProblemException.invalid("rule: at most " + MAX_RULE_FILTER + " characters, got " + rule.length());
        }
        String ruleLower = rule == null || rule.isBlank() ? null : rule.toLowerCase(java.util.Locale.ROOT);
        List<LoggedDecision> scanned;
        if (byEntity) {
            List<LoggedDecision> entries = request != null ? decisions.forRequest(request) : decisions.forLease(lease);
            scanned = entries.stream().filter(d -> lease == null || lease.equals(d.leaseId()))
                    .filter(d -> d.id() > afterId && (from == null || !d.at().isBefore(from))).limit(max).toList();
        } else {
            scanned = decisions.since(from, afterId, max);
        }
        PoolSnapshot snapshot = workingSet.current();
        if (tenant != null) {
            caller.requireReach(tenant, snapshot);
        }
        MutableHttpResponse<List<LoggedDecision>> response = HttpResponse.ok(scanned.stream()
                .filter(d -> d.tenantId() == null || caller.reaches(d.tenantId(), snapshot))
                .filter(d -> tenant == null || tenant.equals(d.tenantId()))
                .filter(d -> action == null || action == d.action())
                .filter(d -> ruleLower == null || d.ruleNames().stream()
                        .anyMatch(r -> r.toLowerCase(java.util.Locale.ROOT).contains(ruleLower)))
                .filter(d -> to == null || !d.at().isAfter(to))
                .toList());
        if (scanned.size() == max) {
            UriBuilder next = UriBuilder.of(http.getUri()).replaceQueryParam("after", scanned.get(max - 1).id());
            if (from != null) {
                next.replaceQueryParam("since", from.toString()); // a default window would move between pages
            }
            response.header(HttpHeaders.LINK, "<" + next.build() + ">; rel=\"next\"");
        }
        return response;
    }

    private static Instant parse(String name, String value) {
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw ProblemException.invalid(name + ": an ISO-8601 instant such as 2026-01-05T12:00:00Z, was '" + io.gpupool.problem.FieldChecks.excerpt(value) + "'");
        }
    }
}
