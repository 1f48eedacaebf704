package io.gpupool.domain.request;

/**
 * Why a queued request is not running in one of the pools it was tried in: what blocks it there
 * ({@link BlockedBy}), the rule or constraint responsible, and how many of its gang members would
 * fit there right now. One of these per pool tried, in the order tried, is in {@link WhyPending#perPool()}.
 */
public record PoolReason(String pool, BlockedBy blockedBy, String ruleName, String reasonCode, String message,
                         int largestFitNow) {
}
