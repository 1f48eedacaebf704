package io.gpupool.lease;

import io.gpupool.policy.fact.UsageSample;
import jakarta.inject.Singleton;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Recent utilisation per lease, in memory, for idle detection (the reclamation sweep) and
 * effective-utilisation reports. Samples are also stored; this keeps only a bounded window so the
 * sweep never reads the sample table. After a restart idle detection restarts from new samples,
 * which can only delay a reclaim, never cause a wrong one.
 */
@Singleton
public class UsageRecorder {
    static final Duration KEEP = Duration.ofHours(6);
    private final Map<String, Deque<UsageSample>> byLease = new ConcurrentHashMap<>();

    public void record(String leaseId, Instant at, double utilisation) {
        Deque<UsageSample> samples = byLease.computeIfAbsent(leaseId, k -> new ArrayDeque<>());
        synchronized (samples) {
            samples.addLast(new UsageSample(leaseId, at, utilisation));
            while (!samples.isEmpty() && samples.peekFirst().at().isBefore(at.minus(KEEP))) {
                samples.removeFirst();
            }
        }
    }

    public void forget(String leaseId) {
        byLease.remove(leaseId);
    }

    public List<UsageSample> all() {
        List<UsageSample> all = new ArrayList<>();
        byLease.values().forEach(d -> {
            synchronized (d) {
                all.addAll(d);
            }
        });
        return all;
    }
}
