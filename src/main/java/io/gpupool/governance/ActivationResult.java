package io.gpupool.governance;

/** The version now active, the one it replaced, and the history record of the change. */
public record ActivationResult(PolicyVersion active, Long previousVersion, HistoryRecord record) {
}
