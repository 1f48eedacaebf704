package io.gpupool.governance;

/**
 * Published when a rule set was refused because it did not validate: on upload ({@code stage}
 * "upload") or when a stored version no longer validates or fails the live-fleet check on
 * activation ("activation"). The refusal is in the policy history as well; this only tells who
 * counts them (metrics). Published on the refusing thread: listeners must only count.
 */
public record PolicyValidationFailed(String stage, int errors) {
    public static final String UPLOAD = "upload";
    public static final String ACTIVATION = "activation";
}
