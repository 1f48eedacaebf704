package io.gpupool.api;

import io.gpupool.auth.Allow;
import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.request.Approvals;
import io.gpupool.request.decision.Outcome;
import io.swagger.v3.oas.annotations.Parameter;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;

import java.util.List;

/**
 * Approvals (docs/api.md, "Approvals"): the requests awaiting approval that the caller may decide,
 * and its answer. Approving decides the request at once (placed with its lease, or queued with its
 * position); approving or denying twice, after the approval lapsed, a cancelled request, or one
 * left to platform admins answers 409/403 and changes nothing.
 */
@Controller("/api/v1/approvals")
public class ApprovalController {
    private final Approvals approvals;

    ApprovalController(Approvals approvals) {
        this.approvals = approvals;
    }

    /** The approver's word to the requester; required to deny. */
    public record Answer(@Nullable String message) {
    }

    @Get
    @Allow({Role.ADMIN, Role.ORG_ADMIN})
    public List<GpuRequest> list(@Parameter(hidden = true) Caller caller) {
        return approvals.decidable(caller);
    }

    @Post("/{id}/approve")
    @Allow({Role.ADMIN, Role.ORG_ADMIN})
    public RequestController.RequestAnswer approve(@PathVariable String id, @Nullable @Body Answer body,
                                                   @Parameter(hidden = true) Caller caller) {
        Outcome outcome = approvals.approve(id, body == null ? null : body.message(), caller);
        return new RequestController.RequestAnswer(outcome.request(), outcome.lease(), outcome.queuePosition());
    }

    @Post("/{id}/deny")
    @Allow({Role.ADMIN, Role.ORG_ADMIN})
    public RequestController.RequestAnswer deny(@PathVariable String id, @Nullable @Body Answer body,
                                                @Parameter(hidden = true) Caller caller) {
        return new RequestController.RequestAnswer(approvals.deny(id, body == null ? null : body.message(), caller), null, 0);
    }
}
