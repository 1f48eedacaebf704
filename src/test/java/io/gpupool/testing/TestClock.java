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
    /** When set, the clock stands at this instant (plus what tests advance it by) instead of following real time. */
    private final AtomicReference<Instant> frozenAt = new AtomicReference<>();

    /** Stops the clock at {@code at}: from now on only {@link #advance} moves it (exact times in accounting tests). */
    public void freezeAt(Instant at) {
        offset.set(Duration.ZERO);
        frozenAt.set(at);
    }

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
        Instant frozen = frozenAt.get();
        return (frozen != null ? frozen : Instant.now().truncatedTo(ChronoUnit.MICROS)).plus(offset.get()); // as ClockFactory's clock
    }
}
