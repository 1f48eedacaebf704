package io.gpupool.domain.inventory;

/** A group of nodes in one site sharing a fabric; {@code interconnect} names it (e.g. "InfiniBand HDR"). */
public record Cluster(String id, String siteId, String name, String interconnect) {
}
