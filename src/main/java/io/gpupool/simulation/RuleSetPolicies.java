package io.gpupool.simulation;

import io.gpupool.policy.engine.Compilation;
import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.ruleset.LayeringException;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.ruleset.RuleSetFiles;
import io.gpupool.policy.ruleset.RuleSetLayering;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Policies named on the command line: {@code default} (the shipped rule set) or a rule-set directory
 * (a whole set, or one with a {@code policy.yaml} that extends the default), compiled as an upload
 * is. A set that does not compile is refused before any run, with each error's file and line.
 * (Stored versions and the active one are the service's: {@code POST /api/v1/policies/replay}.)
 */
public final class RuleSetPolicies {
    private RuleSetPolicies() {
    }

    public static PolicyReplay.Candidate load(String spec) {
        RuleSet ruleSet;
        if ("default".equals(spec)) {
            ruleSet = RuleSetFiles.defaultRuleSet();
        } else {
            Path dir = Path.of(spec);
            if (!Files.isDirectory(dir)) {
                throw new WorkloadInputException(spec, 0, "--policy", "neither 'default' nor a rule-set directory"
                        + " (active and stored versions are replayed by the service: POST /api/v1/policies/replay)");
            }
            try {
                ruleSet = RuleSetLayering.resolve(RuleSetFiles.fromDirectory(dir, dir.getFileName().toString()).files())
                        .ruleSet().withVersion(dir.getFileName().toString());
            } catch (LayeringException e) {
                throw new WorkloadInputException(spec, 0, "policy.yaml", e.getMessage());
            }
        }
        return compile(spec, ruleSet);
    }

    /** {@code ruleSet} compiled under {@code label}; refused with every error when it does not compile. */
    public static PolicyReplay.Candidate compile(String label, RuleSet ruleSet) {
        Compilation compiled = new PolicyCompiler().compile(ruleSet);
        if (!compiled.succeeded()) {
            List<PolicyMessage> errors = compiled.messages().stream()
                    .filter(m -> m.severity() == PolicyMessage.Severity.ERROR).toList();
            PolicyMessage first = errors.isEmpty() ? null : errors.get(0);
            throw new WorkloadInputException(label + (first == null || first.file() == null ? "" : "/" + first.file()),
                    first == null ? 0 : first.line(), null, "the rule set does not compile: "
                    + errors.stream().map(PolicyMessage::toString).collect(Collectors.joining("; ")));
        }
        return new PolicyReplay.Candidate(label, compiled.policy().orElseThrow());
    }
}
