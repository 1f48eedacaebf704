package io.gpupool.domain.inventory;

/** A datacenter or campus; the top of the physical hierarchy site → cluster → node → device. */
public record Site(String id, String name, String region) {
}
