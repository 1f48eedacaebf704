package io.gpupool.policy.sandbox;

/** One reference in a compiled rule class that rules may not make, and why. */
public record RuleClassViolation(String className, String method, String reference, String reason) {
}
