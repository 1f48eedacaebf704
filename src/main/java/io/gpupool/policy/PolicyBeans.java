package io.gpupool.policy;

import io.gpupool.policy.check.PolicyValidator;
import io.gpupool.policy.dryrun.DryRun;
import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.ruleset.RuleSetFiles;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/**
 * Micronaut wiring of the policy core; the core itself has plain constructors and no container
 * dependency. {@link ActivePolicy} starts on the shipped default rule set, compiled on first use
 * (about a second in a cold JVM): the service may make it a {@code @Context} bean or replace it
 * with the version stored as active.
 */
@Factory
public class PolicyBeans {
    @Singleton
    PolicyEngine policyEngine() {
        return new PolicyEngine();
    }

    @Singleton
    PolicyCompiler policyCompiler() {
        return new PolicyCompiler();
    }

    @Singleton
    PolicyValidator policyValidator(PolicyEngine engine) {
        return new PolicyValidator(engine);
    }

    @Singleton
    DryRun dryRun(PolicyEngine engine) {
        return new DryRun(engine);
    }

    @Singleton
    ActivePolicy activePolicy(PolicyCompiler compiler) {
        return new ActivePolicy(compiler.compile(RuleSetFiles.defaultRuleSet()).orThrow());
    }
}
