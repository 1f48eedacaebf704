package io.gpupool.metrics;

import io.gpupool.governance.PolicyValidationFailed;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.context.annotation.Context;

/** Counts rule sets refused because they did not validate, by where (upload or activation). */
// Created at startup so that its counters are exported from zero, not first at their first increment.
@Context
public class PolicyMeters implements ApplicationEventListener<PolicyValidationFailed> {
    private final Counter upload;
    private final Counter activation;

    PolicyMeters(PrometheusMeterRegistry registry) {
        upload = counter(registry, PolicyValidationFailed.UPLOAD);
        activation = counter(registry, PolicyValidationFailed.ACTIVATION);
    }

    private static Counter counter(MeterRegistry registry, String stage) {
        return Counter.builder("gpupool.policy.validation.failures")
                .description("Rule sets refused because they did not validate (upload) or no longer validate or "
                        + "fail the live-fleet check (activation)")
                .tag("stage", stage).register(registry);
    }

    @Override
    public void onApplicationEvent(PolicyValidationFailed failed) {
        (PolicyValidationFailed.ACTIVATION.equals(failed.stage()) ? activation : upload).increment();
    }
}
