package io.gpupool.config;

import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.time.Duration;

/**
 * One injectable clock so tests can fix time; production uses UTC wall time in whole microseconds,
 * the precision the database keeps, so a time in memory is exactly the time its row holds (and
 * holds again after a restart).
 */
@Factory
public class ClockFactory {
    static final Duration TICK = Duration.ofNanos(1_000);

    @Singleton
    Clock clock() {
        return Clock.tick(Clock.systemUTC(), TICK);
    }
}
