package io.gpupool.telemetry;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The recent samples of one GPU or one MIG instance, oldest first, in primitive arrays used as a
 * ring: about 20 bytes a sample instead of ~100 as objects, so a fleet's window fits in memory
 * (10,000 GPUs × 2 h 15 min at one sample per 10 s ≈ 8 M samples ≈ 160 MB). Not thread-safe: its
 * owner locks it.
 */
final class SampleSeries {
    private final String deviceId;
    private final String migProfile;
    private final Integer gpuInstanceId;
    private long[] atMs = new long[8];
    private float[] value = new float[8]; // NaN: no activity figure
    private int[] framebufferMib = new int[8]; // -1: none
    private String[] metric = new String[8];
    private String source;
    private int head;
    private int size;

    SampleSeries(String deviceId, String migProfile, Integer gpuInstanceId) {
        this.deviceId = deviceId;
        this.migProfile = migProfile;
        this.gpuInstanceId = gpuInstanceId;
    }

    String migProfile() { return migProfile; }
    Integer gpuInstanceId() { return gpuInstanceId; }
    int size() { return size; }

    void add(ActivitySample s) {
        long at = s.at().toEpochMilli();
        if (size > 0 && at < atMs[index(size - 1)]) {
            return; // out of order (a reload racing a report): the series stays sorted
        }
        if (size == atMs.length) {
            grow();
        }
        int i = index(size);
        atMs[i] = at;
        value[i] = s.value() == null ? Float.NaN : s.value().floatValue();
        framebufferMib[i] = s.framebufferUsedMib() == null ? -1 : (int) Math.min(Integer.MAX_VALUE, s.framebufferUsedMib());
        metric[i] = s.metric() == null ? null : s.metric().intern();
        source = s.source();
        size++;
    }

    /** Drops the samples taken before {@code horizonMs}. */
    void dropBefore(long horizonMs) {
        while (size > 0 && atMs[head] < horizonMs) {
            metric[head] = null;
            head = (head + 1) % atMs.length;
            size--;
        }
    }

    ActivitySample get(int n) {
        int i = index(n);
        return new ActivitySample(deviceId, migProfile, gpuInstanceId, Instant.ofEpochMilli(atMs[i]), metric[i],
                Float.isNaN(value[i]) ? null : widened(value[i]), framebufferMib[i] < 0 ? null : (long) framebufferMib[i],
                source);
    }

    long atMs(int n) { return atMs[index(n)]; }

    /**
     * A stored activity figure as the double it was given: a float keeps about seven digits, so
     * rounding to the millionth gives back 0.7 rather than 0.699999988 (figures are fractions 0..1;
     * finer digits than a millionth are not kept).
     */
    static double widened(float v) {
        return Math.round(v * 1e6) / 1e6;
    }

    List<ActivitySample> all() {
        List<ActivitySample> out = new ArrayList<>(size);
        for (int n = 0; n < size; n++) {
            out.add(get(n));
        }
        return out;
    }

    private int index(int n) {
        return (head + n) % atMs.length;
    }

    private void grow() {
        int capacity = atMs.length * 2;
        long[] a = new long[capacity];
        float[] v = new float[capacity];
        int[] f = new int[capacity];
        String[] m = new String[capacity];
        for (int n = 0; n < size; n++) {
            int i = index(n);
            a[n] = atMs[i];
            v[n] = value[i];
            f[n] = framebufferMib[i];
            m[n] = metric[i];
        }
        atMs = a;
        value = v;
        framebufferMib = f;
        metric = m;
        head = 0;
    }
}
