package io.gpupool.testing;

import io.micronaut.context.annotation.Replaces;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicReference;

/** The service's clock in tests: real time until a test moves it forward (TTL, grace periods, idleness). */
@Singleton
@Replaces(Clock.class)
public class TestClock extends Clock {
    private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

    public void advance(Duration by) {
        offset.updateAndGet(d -> d.plus(by));
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return Instant.now().truncatedTo(ChronoUnit.MICROS).plus(offset.get()); // as ClockFactory's clock
    }
}
