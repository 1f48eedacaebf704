package io.gpupool.telemetry;

import java.time.Instant;

/**
 * One activity measurement of a GPU, or of one of its MIG instances ({@code migProfile} and
 * {@code gpuInstanceId} set), as a node agent took it at {@code at}. {@code value} (0..1) is the
 * figure policy treats as "active" and {@code metric} says which reading it is (GR_ENGINE_ACTIVE,
 * SM_ACTIVE or GPU_UTIL); null when the source measured none. {@code source} is the agent's source
 * (dcgm, nvidia-smi-xml, …).
 */
public record ActivitySample(String deviceId, String migProfile, Integer gpuInstanceId, Instant at, String metric,
                             Double value, Long framebufferUsedMib, String source) {
}
