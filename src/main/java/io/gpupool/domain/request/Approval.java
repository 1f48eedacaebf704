package io.gpupool.domain.request;

import java.time.Instant;
import java.util.List;

/**
 * What the approval rules decided about a request and what a person made of it. {@code approvers}:
 * who may decide (platform admins may always); {@code reasons}: every rule that required it;
 * {@code expiresAt}: when an undecided approval lapses. {@code verdict} is null while it waits,
 * then APPROVED, DENIED or EXPIRED, with who decided ({@code decidedBy}, a token's principal),
 * their message and when. Cancelling the request leaves the approval undecided: the request's state says so.
 */
public record Approval(Approvers approvers, List<Reason> reasons, String policyVersion, Instant expiresAt,
                       Verdict verdict, String decidedBy, String message, Instant decidedAt) {
    public Approval {
        reasons = reasons == null ? List.of() : List.copyOf(reasons);
    }

    /** One rule's requirement: its name, reason code and message. */
    public record Reason(String ruleName, String reasonCode, String message) {
    }

    public enum Verdict {
        APPROVED, DENIED, EXPIRED
    }

    public static Approval required(Approvers approvers, List<Reason> reasons, String policyVersion, Instant expiresAt) {
        return new Approval(approvers, reasons, policyVersion, expiresAt, null, null, null, null);
    }

    public Approval decided(Verdict how, String by, String note, Instant at) {
        return new Approval(approvers, reasons, policyVersion, expiresAt, how, by, note, at);
    }

    @com.fasterxml.jackson.annotation.JsonIgnore
    public boolean isApproved() {
        return verdict == Verdict.APPROVED;
    }
}
