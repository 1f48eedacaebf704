package io.gpupool.allocator;

/** How close together the GPUs of one request (all gang members included) must or should be. */
public enum TopologyScope {
    /** Anywhere in the candidate set. */
    ANY,
    /** Every GPU of every member on one node. */
    NODE,
    /** Every GPU of every member inside one NVLink/NVSwitch domain (implies one node in practice). */
    NVLINK_DOMAIN,
    /** Every member on nodes of one rack. */
    RACK
}
