package io.gpupool.domain.tenancy;

/** Service tiers of the pool, from most protected to most opportunistic. */
public enum PoolTier {
    CRITICAL_RESERVED, TRAINING, DEV_SHARED, ELASTIC
}
