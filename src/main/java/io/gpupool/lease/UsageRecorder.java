package io.gpupool.lease;

import io.gpupool.domain.lease.UsageSample;
import io.gpupool.store.row.LeaseUsagePoint;
import io.gpupool.store.row.UsageSampleRepository;
import jakarta.annotation.PostConstruct;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Recent utilisation per lease, in memory, for idle detection (the reclamation sweep) and
 * effective-utilisation reports. Samples are also stored; this keeps only a bounded window so the
 * sweep never reads the sample table. At start it reads that window back for the leases still
 * holding GPUs, so a restart does not reset how long a lease has been idle (which would keep idle
 * GPUs from their next user for up to another idle window).
 */
@Singleton
public class UsageRecorder {
    static final Duration KEEP = Duration.ofHours(6);
    private static final Logger LOG = LoggerFactory.getLogger(UsageRecorder.class);
    private final Map<String, Deque<UsageSample>> byLease = new ConcurrentHashMap<>();
    private final UsageSampleRepository stored;
    private final Clock clock;

    UsageRecorder(UsageSampleRepository stored, Clock clock) {
        this.stored = stored;
        this.clock = clock;
    }

    @PostConstruct
    void restore() {
        List<LeaseUsagePoint> points = stored.heldLeasesUsageSince(clock.instant().minus(KEEP));
        points.forEach(p -> record(p.leaseId(), p.at(), p.utilisation()));
        if (!points.isEmpty()) {
            LOG.info("Usage of {} leases restored: {} heartbeats of the last {} h", byLease.size(), points.size(),
                    KEEP.toHours());
        }
    }

    public void record(String leaseId, Instant at, double utilisation) {
        Deque<UsageSample> samples = byLease.computeIfAbsent(leaseId, k -> new ArrayDeque<>());
        synchronized (samples) {
            samples.addLast(new UsageSample(leaseId, at, utilisation));
            while (!samples.isEmpty() && samples.peekFirst().at().isBefore(at.minus(KEEP))) {
                samples.removeFirst();
            }
        }
    }

    /** The utilisation (0–1) of the lease's latest sample within the window; empty if it has reported none. */
    public OptionalDouble latest(String leaseId) {
        Deque<UsageSample> samples = byLease.get(leaseId);
        if (samples == null) {
            return OptionalDouble.empty();
        }
        synchronized (samples) {
            return samples.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(samples.peekLast().utilisation());
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
