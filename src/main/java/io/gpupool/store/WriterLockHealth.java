package io.gpupool.store;

import io.micronaut.core.async.publisher.Publishers;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.HealthIndicator;
import io.micronaut.management.health.indicator.HealthResult;
import jakarta.inject.Singleton;
import org.reactivestreams.Publisher;

import java.util.Map;

/** {@code /health} is DOWN once this instance lost the writer lock: it no longer writes, restart it. */
@Singleton
public class WriterLockHealth implements HealthIndicator {
    private final WriterLock lock;

    public WriterLockHealth(WriterLock lock) {
        this.lock = lock;
    }

    @Override
    public Publisher<HealthResult> getResult() {
        String lost = lock.lostReason();
        return Publishers.just(HealthResult.builder("writer-lock", lost == null ? HealthStatus.UP : HealthStatus.DOWN)
                .details(lost == null ? Map.of() : Map.of("lost", lost)).build());
    }
}
