package io.gpupool.governance;

import io.gpupool.policy.check.PolicyValidator;
import io.gpupool.policy.dryrun.DryRun;
import io.gpupool.policy.engine.EvaluationLimits;
import io.gpupool.policy.engine.PolicyEngine;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

import java.time.Duration;

/**
 * Wires the plain-Java policy core into the service. Limits are configurable so an operator can
 * tighten how long a rule set may run before it is declared non-terminating.
 */
@Factory
public class PolicyBeans {
    @Singleton
    PolicyEngine policyEngine(@Value("${gpupool.policy.base-firings:10000}") int baseFirings,
                              @Value("${gpupool.policy.firings-per-fact:20}") int firingsPerFact,
                              @Value("${gpupool.policy.max-evaluation:10s}") Duration maxEvaluation) {
        return new PolicyEngine(new EvaluationLimits(baseFirings, firingsPerFact, maxEvaluation));
    }

    @Singleton
    PolicyValidator policyValidator(PolicyEngine engine) {
        return new PolicyValidator(engine);
    }

    @Singleton
    DryRun dryRun(PolicyEngine engine) {
        return new DryRun(engine);
    }
}
