package io.gpupool.governance;

/** Result of re-hashing the policy history: intact, or the first record where the chain breaks and why. */
public record ChainVerification(boolean intact, long records, Long firstBrokenSeq, String reason) {
}
