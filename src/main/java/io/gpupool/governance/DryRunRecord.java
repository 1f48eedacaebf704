package io.gpupool.governance;

import java.time.Instant;

/**
 * One entry of the dry-run log: who ran it ({@code by}), when, the candidate's content hash and
 * label, the active version it was compared with, the input ({@code live} or {@code scenario}), how
 * many requests, leases and devices the diff names, whether it was safe to activate, and a summary.
 */
public record DryRunRecord(long id, Instant at, String by, String candidateHash, String candidateVersion,
                           String activeVersion, String input, int requestsChanged, int leasesChanged,
                           int devicesChanged, boolean safeToActivate, String summary) {
}
