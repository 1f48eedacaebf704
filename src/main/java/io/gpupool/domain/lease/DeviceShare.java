package io.gpupool.domain.lease;

/** The part of one GPU a lease holds: {@code milli} of 1000, or one MIG partition when {@code migProfile} is set. */
public record DeviceShare(String deviceId, int milli, String migProfile) {
    public static final int WHOLE = 1000;
}
