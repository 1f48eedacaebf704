package io.gpupool.simulation;

import io.gpupool.request.scheduling.SimulatedScheduler;

import java.util.List;
import java.util.Map;

/**
 * One policy's replay of a workload: every job's fate, the fleet over time, and what the sweeps and
 * preemptions did. {@code reclaimedGpuHours} is by rule name: GPU-hours given back before the holder
 * would have released them (or before the window closed, for holders that never release).
 * {@code work} counts the queue passes and sweeps run and skipped (what the run cost, not what it decided).
 */
public record PolicyRun(String label, String policyVersion, List<JobFate> fates, List<FleetSample> samples,
                        int preemptions, Map<String, Double> reclaimedGpuHours, long decisions,
                        SimulatedScheduler.Counts work) {
    public PolicyRun(String label, String policyVersion, List<JobFate> fates, List<FleetSample> samples,
                     int preemptions, Map<String, Double> reclaimedGpuHours, long decisions) {
        this(label, policyVersion, fates, samples, preemptions, reclaimedGpuHours, decisions, new SimulatedScheduler.Counts());
    }
}
