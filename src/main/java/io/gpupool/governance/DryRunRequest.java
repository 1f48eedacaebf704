package io.gpupool.governance;

import io.gpupool.policy.scenario.ScenarioSpec;
import io.gpupool.policy.scenario.ScenarioSpec.RequestSpec;
import io.micronaut.core.annotation.Nullable;

import java.util.List;
import java.util.Map;

/**
 * A dry-run: the candidate is a stored version ({@code candidateVersion}) or inline {@code files};
 * the input is the live pool plus {@code requests}, or a whole {@code scenario} (the policy-test
 * format: a small pool, requests, a clock) when given.
 */
public record DryRunRequest(@Nullable Long candidateVersion, @Nullable Map<String, String> files,
                            @Nullable ScenarioSpec scenario, @Nullable List<RequestSpec> requests) {
}
