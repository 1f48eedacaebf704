package io.gpupool.policy.engine;

/**
 * Which fact set an evaluation saw: one request's admission facts, the whole pool, or the devices
 * and pools alone (deriving device profiles: tiers and labels).
 */
public enum Scope {
    ADMISSION, SWEEP, PROFILE
}
