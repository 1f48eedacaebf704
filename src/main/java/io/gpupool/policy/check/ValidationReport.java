package io.gpupool.policy.check;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.scenario.PolicyTestReport;

import java.util.List;
import java.util.Optional;

/**
 * Everything the validation pipeline found about an uploaded rule set. {@code valid} means no
 * ERROR at any stage: it compiled, passed lint, every policy test reached quiescence and passed.
 * Only a valid rule set may be activated; {@code policy} is present whenever it compiled and
 * passed lint (failing tests do not hide it), so a dry-run can still show what a draft with
 * failing tests would do — code the linter rejected is never handed out to run.
 */
public record ValidationReport(List<PolicyMessage> messages, @JsonIgnore Optional<CompiledPolicy> policy,
                               Optional<PolicyTestReport> tests) {
    public ValidationReport {
        messages = List.copyOf(messages);
    }

    public boolean valid() {
        return messages.stream().noneMatch(PolicyMessage::isError);
    }

    @JsonIgnore
    public List<PolicyMessage> errors() {
        return messages.stream().filter(PolicyMessage::isError).toList();
    }

    /** Evaluations stopped on the policy tests' fixtures: such a rule set is never run on the live fleet. */
    @JsonIgnore
    public List<PolicyMessage> evaluationErrors() {
        return errors().stream().filter(m -> m.stage() == PolicyMessage.Stage.EVALUATION).toList();
    }
}
