package io.gpupool.webhook;

import java.time.Duration;

/**
 * When a failed delivery is tried again: {@code base · 2^(n−1)} after the n-th failed attempt,
 * capped at {@code max}, of which a random half is kept ("equal jitter"), so receivers that came
 * back together are not hit by every sender in the same instant and the wait still grows.
 */
public record Backoff(Duration base, Duration max) {
    public Backoff {
        if (base.isNegative() || base.isZero() || max.compareTo(base) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < base <= max, was base " + base + ", max " + max);
        }
    }

    /**
     * The wait after the {@code failedAttempts}-th failure (1 for the first); {@code random} in
     * [0, 1) chooses where in the upper half of the capped exponential it falls.
     */
    public Duration after(int failedAttempts, double random) {
        long cap = max.toMillis();
        long exponential = base.toMillis();
        for (int i = 1; i < failedAttempts && exponential < cap; i++) {
            exponential *= 2;
        }
        long full = Math.min(exponential, cap);
        long half = full / 2;
        return Duration.ofMillis(full - half + (long) (random * half));
    }
}
