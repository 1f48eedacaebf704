package io.gpupool.config;

import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

/**
 * The service's background priority: {@code gpupool.background.nice} (default 19, the lowest; 0
 * leaves background threads at the lease path's priority, for A/B runs and for machines where
 * renicing is not wanted).
 */
@Factory
public class BackgroundPriorityFactory {
    @Singleton
    BackgroundPriority backgroundPriority(@Value("${gpupool.background.nice:19}") int nice) {
        if (nice < 0 || nice > BackgroundPriority.LOWEST) {
            throw new IllegalArgumentException("gpupool.background.nice must be 0 to 19, was " + nice);
        }
        return BackgroundPriority.of(nice);
    }
}
