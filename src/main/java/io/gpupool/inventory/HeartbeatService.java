package io.gpupool.inventory;

import io.gpupool.domain.inventory.Heartbeat;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Device;
import io.gpupool.problem.ProblemException;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Records device heartbeats and health changes. A heartbeat from the future (beyond clock skew) is
 * refused: it would make a dead device look alive until that time.
 */
@Singleton
public class HeartbeatService {
    static final Duration MAX_SKEW = Duration.ofMinutes(5);
    /** The earliest time a heartbeat may carry, as for every other time the API takes (docs/api.md). */
    static final Instant EARLIEST = Instant.parse("2000-01-01T00:00:00Z");

    private final WorkingSet workingSet;
    private final Clock clock;

    HeartbeatService(WorkingSet workingSet, Clock clock) {
        this.workingSet = workingSet;
        this.clock = clock;
    }

    public Device record(String deviceId, Heartbeat heartbeat) {
        Instant now = clock.instant();
        // A reported time is kept to the microsecond, as its row keeps it.
        Instant at = heartbeat == null || heartbeat.at() == null ? now : heartbeat.at().truncatedTo(ChronoUnit.MICROS);
        if (at.isAfter(now.plus(MAX_SKEW))) {
            throw ProblemException.invalid("Heartbeat time " + at + " is in the future (server time " + now + ")");
        }
        if (at.isBefore(EARLIEST)) {
            throw ProblemException.invalid("Heartbeat time " + at + " is outside the years 2000 to 9999");
        }
        return workingSet.write((before, changes) -> {
            Device device = before.device(deviceId).orElseThrow(() -> ProblemException.notFound("device", deviceId));
            if (device.lastHeartbeat() != null && at.isBefore(device.lastHeartbeat())) {
                throw ProblemException.conflict("Heartbeat at " + at + " is older than the last one (" + device.lastHeartbeat() + ")");
            }
            DeviceHealth health = heartbeat == null || heartbeat.health() == null ? device.health() : heartbeat.health();
            Device updated = device.withHealth(health, at);
            changes.put(updated);
            return updated;
        });
    }
}
