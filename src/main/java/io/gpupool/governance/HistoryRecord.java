package io.gpupool.governance;

import java.time.Instant;
import java.util.List;

/**
 * One entry of the policy history: who did what, when and why, to which version, with the rules
 * added / removed / changed by name and a unified diff against the version it replaced.
 * {@code recordHash} = SHA-256 over every other field plus {@code prevHash}: editing or deleting a
 * record breaks the chain, which {@code /history/verify} detects.
 */
public record HistoryRecord(long seq, HistoryEvent event, Long version, String contentHash, String author,
                            String message, Instant at, List<String> rulesAdded, List<String> rulesRemoved,
                            List<String> rulesChanged, String diff, String details, String prevHash,
                            String recordHash) {
}
