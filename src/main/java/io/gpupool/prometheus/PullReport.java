package io.gpupool.prometheus;

import java.time.Instant;
import java.util.List;

/**
 * What one pull from Prometheus found. {@code recorded}: samples that reached the devices' telemetry.
 * {@code missing}: devices in scope that no series names (no exporter, a relabelling that lost the
 * GPU's labels), {@code stale}: devices whose newest sample is older than the allowed age; neither
 * is recorded, so neither reads as idle. {@code unmatched}: series that name no device of the
 * inventory. {@code error}: the pull failed and recorded nothing.
 */
public record PullReport(String url, Instant at, boolean ok, String error, int series, int recorded,
                         List<String> missing, List<Stale> stale, int unmatched) {
    public PullReport {
        missing = List.copyOf(missing);
        stale = List.copyOf(stale);
    }

    /** A device whose newest sample is too old to count, and that sample's time. */
    public record Stale(String deviceId, Instant sampleAt, long ageSeconds) {
    }

    static PullReport failed(String url, Instant at, String error) {
        return new PullReport(url, at, false, error, 0, 0, List.of(), List.of(), 0);
    }
}
