package io.gpupool.governance;

import java.time.Instant;

/** A stored, immutable rule-set version; {@code label} ("v7") is what decisions carry as policy version. */
public record PolicyVersion(long version, String label, String contentHash, String author, String message,
                            Instant createdAt, Long parentVersion) {
    public static String label(long version) {
        return "v" + version;
    }
}
