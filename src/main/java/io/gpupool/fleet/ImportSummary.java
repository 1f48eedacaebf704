package io.gpupool.fleet;

import java.util.Map;

/**
 * What an import did, per kind of record ("sites", "devices", …): how many were created, updated
 * (changed) and left unchanged. Re-importing the same document reports only unchanged records.
 */
public record ImportSummary(String contentHash, boolean applied, Map<String, Counts> changes) {
    public record Counts(int created, int updated, int unchanged) {
    }
}
