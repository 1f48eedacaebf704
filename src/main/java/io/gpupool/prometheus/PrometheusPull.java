package io.gpupool.prometheus;

import io.gpupool.agent.NodeReport.Activity;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.prometheus.PromQl.Sample;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.telemetry.ActivitySample;
import io.gpupool.telemetry.DeviceTelemetry;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One pull of device activity from a Prometheus that scrapes dcgm-exporter: per metric, the newest
 * value and its sample time ({@code timestamp(…)}: an instant query reports the evaluation time,
 * not the sample's), joined per series, matched to a device by its UUID label or by host and GPU
 * index (imported clusters know their cards by slot, not UUID), and recorded in
 * {@link DeviceTelemetry} as agents' readings are, so idle reclamation reads them the same way.
 * A device no series names is reported missing and a sample older than {@code staleAfter} stale;
 * neither is recorded, so "not measured" never reads as "idle". A sample already recorded is not
 * recorded again.
 */
public final class PrometheusPull {
    public static final String SOURCE = "prometheus";
    static final String GR_ENGINE_ACTIVE = "DCGM_FI_PROF_GR_ENGINE_ACTIVE";
    static final String SM_ACTIVE = "DCGM_FI_PROF_SM_ACTIVE";
    static final String GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL";
    static final String FB_USED = "DCGM_FI_DEV_FB_USED";
    private static final List<String> METRICS = List.of(GR_ENGINE_ACTIVE, SM_ACTIVE, GPU_UTIL, FB_USED);

    private final PromQl promql;
    private final SeriesLabels labels;
    private final Duration staleAfter;
    private final Set<String> clusters;
    private final DeviceTelemetry telemetry;
    /** The sample time last recorded per device and MIG instance. */
    private final Map<String, Instant> recordedUpTo = new ConcurrentHashMap<>();

    public PrometheusPull(URI url, Duration timeout, SeriesLabels labels, Duration staleAfter, Set<String> clusters,
                          DeviceTelemetry telemetry) {
        this.promql = new PromQl(url, timeout);
        this.labels = labels;
        this.staleAfter = staleAfter;
        this.clusters = Set.copyOf(clusters);
        this.telemetry = telemetry;
    }

    /** A series' readings, by metric, and the newest sample time among them. */
    private static final class Reading {
        final Map<String, String> labels;
        final Map<String, Double> values = new HashMap<>();
        Instant sampleAt;

        Reading(Map<String, String> labels) {
            this.labels = labels;
        }
    }

    public PullReport pull(PoolSnapshot snapshot, Instant now) {
        String url = promql.base().toString();
        Map<Map<String, String>, Reading> readings = new HashMap<>();
        try {
            for (String metric : METRICS) {
                for (Sample s : promql.query(metric, now)) {
                    readings.computeIfAbsent(key(s.labels()), Reading::new).values.put(metric, s.value());
                }
                for (Sample s : promql.query("timestamp(" + metric + ")", now)) {
                    Reading r = readings.get(key(s.labels()));
                    if (r != null) {
                        Instant at = Instant.ofEpochMilli(Math.round(s.value() * 1000));
                        r.sampleAt = r.sampleAt == null || at.isAfter(r.sampleAt) ? at : r.sampleAt;
                    }
                }
            }
        } catch (PrometheusException e) {
            return PullReport.failed(url, now, e.getMessage());
        }

        Map<String, Device> byUuid = new HashMap<>();
        Map<String, Device> bySlot = new HashMap<>();
        for (Device d : snapshot.devices().values()) {
            byUuid.put(d.uuid(), d);
            bySlot.put(d.nodeId() + "/" + d.index(), d);
        }
        Set<String> measured = new TreeSet<>();
        Map<String, PullReport.Stale> stale = new TreeMap<>();
        int recorded = 0;
        int unmatched = 0;
        for (Reading r : readings.values()) {
            Device d = device(r.labels, byUuid, bySlot);
            if (d == null || r.sampleAt == null) {
                unmatched++;
                continue;
            }
            measured.add(d.id());
            long age = Duration.between(r.sampleAt, now).toSeconds();
            if (Duration.between(r.sampleAt, now).compareTo(staleAfter) > 0) {
                stale.merge(d.id(), new PullReport.Stale(d.id(), r.sampleAt, age),
                        (a, b) -> a.sampleAt().isAfter(b.sampleAt()) ? a : b);
                continue;
            }
            String profile = SeriesLabels.first(r.labels, labels.migProfile());
            Integer instance = number(SeriesLabels.first(r.labels, labels.migInstance()));
            String seen = d.id() + "/" + profile + "/" + instance;
            Instant last = recordedUpTo.get(seen);
            if (last != null && !r.sampleAt.isAfter(last)) {
                continue;
            }
            Double util = r.values.get(GPU_UTIL);
            Double fb = r.values.get(FB_USED);
            Activity a = Activity.of(fraction(r.values.get(GR_ENGINE_ACTIVE)), fraction(r.values.get(SM_ACTIVE)),
                    util == null ? null : fraction(util / 100.0), fb == null ? null : Math.round(fb));
            if (a == null) {
                continue;
            }
            telemetry.record(new ActivitySample(d.id(), profile, instance, r.sampleAt, a.metric(), a.value(),
                    a.framebufferUsedMib(), SOURCE));
            recordedUpTo.put(seen, r.sampleAt);
            recorded++;
        }
        List<String> missing = new ArrayList<>();
        for (Device d : snapshot.devices().values()) {
            if (d.health() != DeviceHealth.OFFLINE && (clusters.isEmpty() || clusters.contains(d.clusterId()))
                    && !measured.contains(d.id())) {
                missing.add(d.id());
            }
        }
        missing.sort(null);
        return new PullReport(url, now, true, null, readings.size(), recorded, missing, List.copyOf(stale.values()), unmatched);
    }

    private Device device(Map<String, String> l, Map<String, Device> byUuid, Map<String, Device> bySlot) {
        String uuid = SeriesLabels.first(l, labels.uuid());
        if (uuid != null && byUuid.containsKey(uuid)) {
            return byUuid.get(uuid);
        }
        String host = SeriesLabels.first(l, labels.host());
        Integer gpu = number(SeriesLabels.first(l, labels.gpu()));
        return host == null || gpu == null ? null : bySlot.get(host + "/" + gpu);
    }

    /** The labels that name a series apart from its metric, so one GPU's metrics join. */
    private static Map<String, String> key(Map<String, String> labels) {
        Map<String, String> k = new TreeMap<>(labels);
        k.remove("__name__");
        return k;
    }

    private static Integer number(String v) {
        if (v == null) {
            return null;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** A fraction clamped to 0..1 (DCGM's ratios can overshoot 1 by rounding); NaN is no reading. */
    private static Double fraction(Double v) {
        return v == null || v.isNaN() ? null : Math.max(0, Math.min(1, v));
    }
}
