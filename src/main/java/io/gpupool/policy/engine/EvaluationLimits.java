package io.gpupool.policy.engine;

import io.gpupool.policy.sandbox.RuleBudget;

import java.time.Duration;

/**
 * Bounds on one evaluation so a looping or greedy rule set fails instead of hanging or exhausting
 * the heap: at most {@code baseFirings + firingsPerFact × facts} rule firings, no more than
 * {@code maxDuration} of time (checked between firings and, through the sandbox's budget, inside
 * rule code: loops, recursion, constraints), and at most {@code baseBytes + bytesPerFact × facts}
 * allocated by the evaluating thread. Scaling with the fact count lets the 60k-fact sweep and a
 * 10-fact admission share one setting.
 */
public record EvaluationLimits(int baseFirings, int firingsPerFact, Duration maxDuration, long baseBytes, long bytesPerFact) {
    public static final long DEFAULT_BASE_BYTES = 256L * 1024 * 1024;
    public static final long DEFAULT_BYTES_PER_FACT = 32L * 1024;
    public static final EvaluationLimits DEFAULT = new EvaluationLimits(10_000, 20, Duration.ofSeconds(10));

    public EvaluationLimits(int baseFirings, int firingsPerFact, Duration maxDuration) {
        this(baseFirings, firingsPerFact, maxDuration, DEFAULT_BASE_BYTES, DEFAULT_BYTES_PER_FACT);
    }

    public int maxFirings(int factCount) {
        long cap = baseFirings + (long) firingsPerFact * factCount;
        return (int) Math.min(Integer.MAX_VALUE - 1, cap);
    }

    /** The sandbox budget of an evaluation over {@code factCount} facts. */
    public RuleBudget.Limits budget(int factCount) {
        return new RuleBudget.Limits(maxDuration, baseBytes + bytesPerFact * factCount);
    }
}
