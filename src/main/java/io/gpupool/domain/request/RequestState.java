package io.gpupool.domain.request;

/** QUEUED waits in its pool's queue; PLACED got a lease; REJECTED was refused by policy; CANCELLED by its owner. */
public enum RequestState {
    QUEUED, PLACED, REJECTED, CANCELLED
}
