package io.gpupool.api;

import io.gpupool.problem.Problem;
import io.gpupool.audit.DecisionLog;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.auth.Allow;
import io.gpupool.auth.Caller;
import io.swagger.v3.oas.annotations.Parameter;
import io.gpupool.auth.Role;
import io.gpupool.governance.ActivePolicy;
import io.gpupool.domain.lease.Lease;
import io.gpupool.lease.LeaseService;
import io.gpupool.request.AllocationService;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.request.NewRequest;
import io.gpupool.request.decision.Outcome;
import io.gpupool.domain.request.WhyPending;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;

import java.util.ArrayList;
import java.util.List;

/**
 * GPU requests: 201 placed (with its lease), 202 queued or awaiting approval (with why and, for an
 * approval, who may give it), 422 rejected by policy (with the
 * rule) or because no pool it may use could ever host it (with the constraint).
 */
@Controller("/api/v1/requests")
public class RequestController {
    private final AllocationService allocation;
    private final LeaseService leases;
    private final DecisionLog decisions;
    private final ActivePolicy active;

    RequestController(AllocationService allocation, LeaseService leases, DecisionLog decisions, ActivePolicy active) {
        this.allocation = allocation;
        this.leases = leases;
        this.decisions = decisions;
        this.active = active;
    }

    public record RequestAnswer(GpuRequest request, Lease lease, int queuePosition) {
    }

    /**
     * RFC 7807 with the explanation as extension members: the stored request, the rule and reason
     * code; a request refused because it could never be placed was not stored ({@code requestId}
     * null) and its reason code says which constraint (NEVER_FITS_*).
     */
    public record Rejection(String type, String title, int status, String detail, String instance, String requestId,
                            String ruleName, String reasonCode) {
    }

    public record Explanation(GpuRequest request, Lease lease, int queuePosition, String activePolicyVersion,
                              List<LoggedDecision> decisions) {
    }

    @Post
    @Allow({Role.ADMIN, Role.TENANT})
    public HttpResponse<?> submit(@Nullable @Body NewRequest body, @Nullable @Header("Idempotency-Key") String key,
                                  @Parameter(hidden = true) Caller caller, HttpRequest<?> http) {
        Outcome outcome = allocation.submit(body, key, caller);
        GpuRequest r = outcome.request();
        if (outcome.kind() == Outcome.Kind.REJECTED || outcome.kind() == Outcome.Kind.REFUSED) {
            WhyPending why = r.whyPending();
            boolean refused = outcome.kind() == Outcome.Kind.REFUSED;
            return HttpResponse.status(HttpStatus.UNPROCESSABLE_ENTITY).contentType(Problem.MEDIA_TYPE)
                    .body(new Rejection("about:blank", refused ? "No pool it may use could ever host it"
                            : "Rejected by policy", 422, why.message(), http.getPath(), refused ? null : r.id(),
                            why.ruleName(), why.reasonCode()));
        }
        return HttpResponse.status(statusOf(outcome.kind()))
                .body(new RequestAnswer(r, outcome.lease(), outcome.queuePosition()));
    }

    @Get("/{id}")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public RequestAnswer get(@PathVariable String id, @Parameter(hidden = true) Caller caller) {
        GpuRequest request = allocation.get(id, caller);
        return new RequestAnswer(request, lease(request, caller), allocation.positionOf(request));
    }

    @Delete("/{id}")
    @Allow({Role.ADMIN, Role.TENANT})
    public RequestAnswer cancel(@PathVariable String id, @Parameter(hidden = true) Caller caller) {
        GpuRequest cancelled = allocation.cancel(id, caller);
        return new RequestAnswer(cancelled, lease(cancelled, caller), 0);
    }

    @Get("/{id}/explain")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.ORG_ADMIN})
    public Explanation explain(@PathVariable String id, @Parameter(hidden = true) Caller caller) {
        GpuRequest request = allocation.get(id, caller);
        List<LoggedDecision> all = new ArrayList<>(decisions.forRequest(id));
        if (request.leaseId() != null) {
            decisions.forLease(request.leaseId()).stream().filter(d -> !all.contains(d)).forEach(all::add);
        }
        all.sort(java.util.Comparator.comparing(LoggedDecision::id));
        return new Explanation(request, lease(request, caller), allocation.positionOf(request),
                io.gpupool.governance.PolicyVersion.label(active.current().version()), all);
    }

    private Lease lease(GpuRequest request, Caller caller) {
        return request.leaseId() == null ? null : leases.get(request.leaseId(), caller);
    }

    /** How each kind of outcome is answered: 201 with the lease, 202 while it queues, 200 for an ended request shown again. */
    private static HttpStatus statusOf(Outcome.Kind kind) {
        return switch (kind) {
            case PLACED -> HttpStatus.CREATED;
            case QUEUED, AWAITING_APPROVAL -> HttpStatus.ACCEPTED;
            case REJECTED, REFUSED -> HttpStatus.UNPROCESSABLE_ENTITY;
            case ENDED -> HttpStatus.OK;
        };
    }
}
