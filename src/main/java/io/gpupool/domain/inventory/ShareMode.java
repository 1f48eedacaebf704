package io.gpupool.domain.inventory;

/** How a GPU may be shared: whole card only, time-sliced fractions, or fixed MIG partitions. */
public enum ShareMode {
    EXCLUSIVE, TIME_SLICE, MIG
}
