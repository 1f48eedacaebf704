package io.gpupool.request;

import io.gpupool.auth.Caller;
import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.request.Approval;
import io.gpupool.domain.request.Approvers;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.problem.ProblemException;
import io.gpupool.request.decision.Outcome;
import io.gpupool.request.decision.PolicyPipeline;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * People's answers to what approval rules required (docs/allocation.md, "Approval"): who may decide
 * which request, approve (the request is then decided by the same pipeline as a queued one: placed,
 * or queued at its priority with its original arrival time), deny, and the lapse of undecided ones.
 * Each answer is one writer mutation that checks the request as it is in that write, so two
 * approvers racing cannot both decide: the second gets 409 and changes nothing.
 */
@Singleton
public class Approvals {
    static final int MAX_MESSAGE = 1000;

    private final WorkingSet workingSet;
    private final AllocationService allocation;
    private final Clock clock;

    Approvals(WorkingSet workingSet, AllocationService allocation, Clock clock) {
        this.workingSet = workingSet;
        this.allocation = allocation;
        this.clock = clock;
    }

    /** The requests awaiting approval that {@code caller} may decide, oldest first. */
    public List<GpuRequest> decidable(Caller caller) {
        PoolSnapshot snapshot = workingSet.current();
        return workingSet.read(store -> store.findRequests(RequestState.AWAITING_APPROVAL)).stream()
                .filter(r -> mayDecide(caller, r, snapshot)).toList();
    }

    /** Platform admins decide every approval; an org-admin those its rules leave to org-admins, in its subtree. */
    static boolean mayDecide(Caller caller, GpuRequest request, PoolSnapshot snapshot) {
        if (caller.isAdmin()) {
            return true;
        }
        return caller.isOrgAdmin() && request.approval() != null && request.approval().approvers() == Approvers.ORG_ADMIN
                && caller.reaches(request.tenantId(), snapshot);
    }

    public Outcome approve(String id, String message, Caller caller) {
        String note = note(message, false);
        requireVisible(id, caller);
        Outcome outcome = workingSet.write((before, changes) -> {
            Instant now = clock.instant();
            GpuRequest request = undecided(changes, id, caller, before, now, "approve");
            Approval approval = request.approval().decided(Approval.Verdict.APPROVED, caller.principal(), note, now);
            GpuRequest approved = request.withApproval(approval)
                    .with(RequestState.QUEUED, request.priority(), null, request.whyPending(), now);
            changes.log(LoggedDecision.of(DecisionAction.APPROVE, id, null, request.tenantId(), ruleNames(approval),
                    approval.policyVersion(), "APPROVED", "Approved by " + caller.principal() + said(note)), now);
            return allocation.pipeline().approved(before, changes, approved, now);
        });
        if (outcome.kind() == Outcome.Kind.QUEUED && outcome.request().whyPending().blockedBy() == BlockedBy.CAPACITY
                && !allocation.pipeline().reservations().hasHeadIn(outcome.request().whyPending().pool())) {
            workingSet.write((before, changes) -> allocation.refreshReservations(before)); // a new head reserves now
        }
        return outcome;
    }

    public GpuRequest deny(String id, String message, Caller caller) {
        String note = note(message, true);
        requireVisible(id, caller);
        return workingSet.write((before, changes) -> {
            Instant now = clock.instant();
            GpuRequest request = undecided(changes, id, caller, before, now, "deny");
            Approval approval = request.approval().decided(Approval.Verdict.DENIED, caller.principal(), note, now);
            String text = "Denied by " + caller.principal() + said(note);
            GpuRequest denied = request.withApproval(approval).with(RequestState.REJECTED, request.priority(), null,
                    new WhyPending(BlockedBy.APPROVAL, firstRule(approval), "APPROVAL_DENIED", text, 0, null, null), now);
            changes.update(denied).log(LoggedDecision.of(DecisionAction.DENY, id, null, request.tenantId(),
                    ruleNames(approval), approval.policyVersion(), "APPROVAL_DENIED", text), now);
            return denied;
        });
    }

    /** Rejects every approval that lapsed undecided; how many. Run by {@link ApprovalExpiry}. */
    public int expireLapsed() {
        Instant now = clock.instant();
        List<String> lapsed = workingSet.read(store -> store.findRequests(RequestState.AWAITING_APPROVAL)).stream()
                .filter(r -> r.approval() != null && !now.isBefore(r.approval().expiresAt())).map(GpuRequest::id).toList();
        if (lapsed.isEmpty()) {
            return 0;
        }
        return workingSet.write((before, changes) -> {
            int expired = 0;
            for (String id : lapsed) {
                GpuRequest request = changes.findRequest(id).orElse(null);
                if (request == null || request.state() != RequestState.AWAITING_APPROVAL || request.approval() == null
                        || now.isBefore(request.approval().expiresAt())) {
                    continue; // decided or cancelled since it was read
                }
                Approval approval = request.approval().decided(Approval.Verdict.EXPIRED, null, null, now);
                String text = "Nobody approved it before " + approval.expiresAt() + "; the approval lapsed";
                changes.update(request.withApproval(approval).with(RequestState.REJECTED, request.priority(), null,
                        new WhyPending(BlockedBy.APPROVAL, firstRule(approval), "APPROVAL_EXPIRED", text, 0, null,
                                approval.expiresAt()), now))
                        .log(LoggedDecision.of(DecisionAction.APPROVAL_EXPIRY, id, null, request.tenantId(),
                                ruleNames(approval), approval.policyVersion(), "APPROVAL_EXPIRED", text), now);
                expired++;
            }
            return expired;
        });
    }

    /** 404 for an unknown id, 403 for one outside the caller's reach (never naming its owner). */
    private void requireVisible(String id, Caller caller) {
        allocation.get(id, caller);
    }

    /**
     * The request, still awaiting a decision this caller may give; else 409 (decided, lapsed,
     * cancelled, needing none) or 403 (left to platform admins), and the write changes nothing.
     */
    private static GpuRequest undecided(Changes changes, String id, Caller caller, PoolSnapshot before, Instant now,
                                        String verb) {
        GpuRequest request = changes.findRequest(id).orElseThrow(() -> ProblemException.notFound("request", id));
        Approval approval = request.approval();
        if (approval == null) {
            throw ProblemException.conflict("Request " + id + " needs no approval: no approval rule required one (it is "
                    + request.state() + ")");
        }
        if (approval.verdict() == Approval.Verdict.EXPIRED) {
            throw ProblemException.conflict("Request " + id + "'s approval lapsed at " + approval.expiresAt()
                    + "; the requester may ask again");
        }
        if (approval.verdict() != null) {
            throw ProblemException.conflict("Request " + id + " was already " + approval.verdict().name().toLowerCase()
                    + " by " + approval.decidedBy() + " at " + approval.decidedAt() + "; nothing changed");
        }
        if (request.state() == RequestState.CANCELLED) {
            throw ProblemException.conflict("Request " + id + " was cancelled by its requester; there is nothing to " + verb);
        }
        if (request.state() != RequestState.AWAITING_APPROVAL) {
            throw ProblemException.conflict("Request " + id + " is " + request.state() + ", not awaiting approval");
        }
        if (!now.isBefore(approval.expiresAt())) {
            throw ProblemException.conflict("Request " + id + "'s approval lapsed at " + approval.expiresAt()
                    + "; the requester may ask again");
        }
        if (!mayDecide(caller, request, before)) {
            throw ProblemException.forbidden("Request " + id + " waits for a platform admin's approval ("
                    + String.join("; ", approval.reasons().stream().map(Approval.Reason::message).toList())
                    + "); token '" + caller.name() + "' may not " + verb + " it");
        }
        return request;
    }

    private static String note(String message, boolean required) {
        if (message != null && message.length() > MAX_MESSAGE) {
            throw ProblemException.invalid("message: at most " + MAX_MESSAGE + " characters, got " + message.length());
        }
        if (required && (message == null || message.isBlank())) {
            throw ProblemException.invalid("message: say why the request is denied (the requester reads it)");
        }
        return message == null || message.isBlank() ? null : message.strip();
    }

    private static String said(String note) {
        return note == null ? "" : ": " + note;
    }

    private static List<String> ruleNames(Approval approval) {
        List<String> names = new ArrayList<>();
        approval.reasons().forEach(r -> {
            if (!names.contains(r.ruleName())) {
                names.add(r.ruleName());
            }
        });
        return names;
    }

    private static String firstRule(Approval approval) {
        return approval.reasons().isEmpty() ? null : approval.reasons().get(0).ruleName();
    }
}
