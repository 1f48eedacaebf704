package io.gpupool.nodereport;

import java.util.List;

/**
 * What one agent report did: {@code applied} false when the service had already applied that
 * sequence number or a later one ({@code reason} says which), so a retried report changes nothing.
 * {@code changes} lists each change in words, as the decision log has it.
 */
public record ReportOutcome(String node, long sequence, boolean applied, String reason, int added, int changed,
                            int vanished, int unchanged, List<String> changes) {
    public ReportOutcome {
        changes = changes == null ? List.of() : List.copyOf(changes);
    }
}
