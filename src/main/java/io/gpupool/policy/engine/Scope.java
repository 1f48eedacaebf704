package io.gpupool.policy.engine;

/** Which fact set an evaluation saw: one request's admission facts, or the whole pool. */
public enum Scope {
    ADMISSION, SWEEP
}
