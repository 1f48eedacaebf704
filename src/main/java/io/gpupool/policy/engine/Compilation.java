package io.gpupool.policy.engine;

import java.util.List;
import java.util.Optional;

/** The outcome of compiling a rule set: the policy when there was no error, and every message. */
public record Compilation(Optional<CompiledPolicy> policy, List<PolicyMessage> messages) {
    public Compilation {
        messages = List.copyOf(messages);
    }

    public boolean succeeded() {
        return policy.isPresent();
    }

    /** The policy, or an exception listing the errors: for rule sets that must compile (the default set). */
    public CompiledPolicy orThrow() {
        return policy.orElseThrow(() -> new IllegalStateException("Rule set does not compile: " + messages));
    }
}
