package io.gpupool.governance;

/** What a policy history record is about. */
public enum HistoryEvent {
    UPLOADED, VALIDATION_FAILED, ACTIVATED, ROLLED_BACK, ACTIVATION_FAILED
}
