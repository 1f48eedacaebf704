package io.gpupool.telemetry;

import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.UsageSample;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Recent device activity, in memory: what node agents measured on each GPU and MIG instance over
 * the last {@link TelemetrySettings#memoryWindow()} (by default the default rules' longest idle
 * window, two hours, with a margin). It is what idle reclamation trusts ({@link #leaseSamples}); the
 * latest sample of each device is shown by {@code GET /devices}. The samples are also in the
 * {@code device_sample} table ({@link TelemetryWriter}); at start the window is read back from it
 * ({@link TelemetryHistory#since}), so a restart does not make an idle lease look new. Compact
 * ({@link SampleSeries}), bounded by the window, so its size follows the fleet, not time.
 * Thread-safe.
 */
@Singleton
public class DeviceTelemetry {
    private final Duration keep;
    /** Per device, its series: the whole card first, then its MIG instances. */
    private final Map<String, List<SampleSeries>> byDevice = new ConcurrentHashMap<>();

    /** Empty, with the default window (for tests and tools that feed it themselves). */
    public DeviceTelemetry() {
        this(TelemetrySettings.DEFAULT_MEMORY_WINDOW);
    }

    public DeviceTelemetry(Duration keep) {
        this.keep = keep;
    }

    /** The service's: the window as configured, read back from the samples table. */
    @Inject
    public DeviceTelemetry(TelemetrySettings settings, TelemetryHistory history, Clock clock) {
        this(settings.memoryWindow());
        history.since(clock.instant().minus(keep)).forEach(this::record);
    }

    public Duration window() {
        return keep;
    }

    public void record(ActivitySample sample) {
        List<SampleSeries> series = byDevice.computeIfAbsent(sample.deviceId(), k -> new ArrayList<>(1));
        synchronized (series) {
            SampleSeries mine = null;
            for (SampleSeries s : series) {
                if (Objects.equals(s.gpuInstanceId(), sample.gpuInstanceId()) && Objects.equals(s.migProfile(), sample.migProfile())) {
                    mine = s;
                    break;
                }
            }
            if (mine == null) {
                mine = new SampleSeries(sample.deviceId(), sample.migProfile(), sample.gpuInstanceId());
                series.add(mine);
            }
            mine.add(sample);
            long horizon = sample.at().minus(keep).toEpochMilli();
            for (SampleSeries s : series) {
                s.dropBefore(horizon);
            }
            series.removeIf(s -> s.size() == 0);
        }
    }

    /** The newest whole-GPU sample of a device, if an agent reported one in the window. */
    public Optional<ActivitySample> latest(String deviceId) {
        List<SampleSeries> series = byDevice.get(deviceId);
        if (series == null) {
            return Optional.empty();
        }
        synchronized (series) {
            for (SampleSeries s : series) {
                if (s.migProfile() == null && s.gpuInstanceId() == null && s.size() > 0) {
                    return Optional.of(s.get(s.size() - 1));
                }
            }
            return Optional.empty();
        }
    }

    /** Every sample of a device in the window, oldest first. */
    public List<ActivitySample> samples(String deviceId) {
        List<SampleSeries> series = byDevice.get(deviceId);
        if (series == null) {
            return List.of();
        }
        List<ActivitySample> all = new ArrayList<>();
        synchronized (series) {
            series.forEach(s -> all.addAll(s.all()));
        }
        all.sort(Comparator.comparing(ActivitySample::at));
        return all;
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
        int n = 0;
        for (List<SampleSeries> series : byDevice.values()) {
            synchronized (series) {
                for (SampleSeries s : series) {
                    n += s.size();
                }
            }
        }
        return n;
    }
}
