package io.gpupool.policy;

import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.PolicyCompiler;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ActivePolicyTest {
    @Test
    void activationSwapsThePolicyAndHandsBackThePreviousOne() {
        CompiledPolicy v2 = new PolicyCompiler().compile(DefaultPolicy.RULE_SET.withVersion("v2")).orThrow();
        ActivePolicy active = new ActivePolicy(DefaultPolicy.POLICY);

        CompiledPolicy previous = active.activate(v2);

        assertThat(previous).isSameAs(DefaultPolicy.POLICY);
        assertThat(active.current().version()).isEqualTo("v2");
        assertThat(active.activate(previous).version()).isEqualTo("v2");
        assertThat(active.current().version()).isEqualTo("default");
    }
}
