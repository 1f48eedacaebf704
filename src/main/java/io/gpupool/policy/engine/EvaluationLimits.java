package io.gpupool.policy.engine;

import java.time.Duration;

/**
 * Bounds on one evaluation so a looping rule set fails instead of hanging: at most
 * {@code baseFirings + firingsPerFact × facts} rule firings, and no new firing after
 * {@code maxDuration}. Scaling with the fact count lets the 60k-fact sweep and a 10-fact admission
 * share one setting.
 */
public record EvaluationLimits(int baseFirings, int firingsPerFact, Duration maxDuration) {
    public static final EvaluationLimits DEFAULT = new EvaluationLimits(10_000, 20, Duration.ofSeconds(10));

    public int maxFirings(int factCount) {
        long cap = baseFirings + (long) firingsPerFact * factCount;
        return (int) Math.min(Integer.MAX_VALUE - 1, cap);
    }
}
