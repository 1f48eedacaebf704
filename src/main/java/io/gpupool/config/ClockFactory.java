package io.gpupool.config;

import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

import java.time.Clock;

/** One injectable clock so tests can fix time; production uses UTC wall time. */
@Factory
public class ClockFactory {
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }
}
