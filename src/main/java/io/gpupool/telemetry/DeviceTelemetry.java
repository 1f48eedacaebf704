package io.gpupool.telemetry;

import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.UsageSample;
import jakarta.inject.Singleton;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Recent device activity, in memory: what node agents measured on each GPU and MIG instance over
 * the last {@link #KEEP}. It is what idle reclamation trusts ({@link #leaseSamples}); the latest
 * sample of each device is shown by {@code GET /devices}. Bounded per device, so its size follows
 * the fleet, not time. Thread-safe.
 */
@Singleton
public class DeviceTelemetry {
    /** As long as the longest idle window of the default rules (two hours), with room to spare. */
    static final Duration KEEP = Duration.ofHours(6);

    private final Map<String, Deque<ActivitySample>> byDevice = new ConcurrentHashMap<>();

    public void record(ActivitySample sample) {
        Deque<ActivitySample> samples = byDevice.computeIfAbsent(sample.deviceId(), k -> new ArrayDeque<>());
        synchronized (samples) {
            samples.addLast(sample);
            Instant horizon = sample.at().minus(KEEP);
            while (!samples.isEmpty() && samples.peekFirst().at().isBefore(horizon)) {
                samples.removeFirst();
            }
        }
    }

    /** The newest whole-GPU sample of a device, if an agent reported one in the window. */
    public Optional<ActivitySample> latest(String deviceId) {
        Deque<ActivitySample> samples = byDevice.get(deviceId);
        if (samples == null) {
            return Optional.empty();
        }
        synchronized (samples) {
            var it = samples.descendingIterator();
            while (it.hasNext()) {
                ActivitySample s = it.next();
                if (s.migProfile() == null && s.gpuInstanceId() == null) {
                    return Optional.of(s);
                }
            }
            return Optional.empty();
        }
    }

    /** Every sample of a device in the window, oldest first. */
    public List<ActivitySample> samples(String deviceId) {
        Deque<ActivitySample> samples = byDevice.get(deviceId);
        if (samples == null) {
            return List.of();
        }
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }

    /**
     * What the devices measured for each lease, as usage samples of source DEVICE: per report time,
     * the busiest of the lease's GPUs (a lease is idle only when all of them are). A MIG share reads
     * the instances of its profile on its card, the busiest of them, since a lease does not record
     * which instance of that profile it got: it is never called idle while an instance it may hold
     * is busy. Only samples taken since the lease started count (earlier ones were its
     * predecessor's), and only samples with an activity figure.
     */
    public List<UsageSample> leaseSamples(Collection<Lease> leases, Instant now) {
        List<UsageSample> out = new ArrayList<>();
        for (Lease lease : leases) {
            Map<Instant, Double> busiest = new TreeMap<>();
            for (DeviceShare share : lease.shares()) {
                for (ActivitySample s : samples(share.deviceId())) {
                    if (s.value() == null || s.at().isBefore(lease.createdAt()) || s.at().isAfter(now)) {
                        continue;
                    }
                    boolean mine = share.migProfile() == null ? s.migProfile() == null && s.gpuInstanceId() == null
                            : share.migProfile().equals(s.migProfile());
                    if (mine) {
                        busiest.merge(s.at(), s.value(), Math::max);
                    }
                }
            }
            busiest.forEach((at, value) -> out.add(new UsageSample(lease.id(), at, value, UsageSample.Source.DEVICE)));
        }
        return out;
    }

    /** Forgets a device (it left the inventory). */
    public void forget(String deviceId) {
        byDevice.remove(deviceId);
    }

    /** Samples held, over all devices (for the meters and the storage figures). */
    public int size() {
        return byDevice.values().stream().mapToInt(d -> {
            synchronized (d) {
                return d.size();
            }
        }).sum();
    }
}
