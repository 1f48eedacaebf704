package io.gpupool.domain.lease;

/** The scenario a request is for; admission policy maps each to the pools it may use. */
public enum WorkloadKind {
    TRAINING, INFERENCE, EXPERIMENT, DEV
}
