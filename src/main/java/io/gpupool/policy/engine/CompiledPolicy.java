package io.gpupool.policy.engine;

import io.gpupool.policy.ruleset.RuleSet;
import org.kie.api.KieBase;

import java.util.Set;

/**
 * A rule set compiled once and evaluated many times; the {@link KieBase} is thread-safe, so one
 * instance serves every concurrent evaluation. {@code ruleNames} lists every rule (for coverage);
 * {@code matchedDecisionTypes} are the decision types some rule pattern-matches, the only ones
 * worth inserting back into a session.
 */
public record CompiledPolicy(RuleSet ruleSet, KieBase kieBase, Set<String> ruleNames,
                             Set<Class<?>> matchedDecisionTypes, boolean declaresDecisionsGlobal) {
    public CompiledPolicy {
        ruleNames = Set.copyOf(ruleNames);
        matchedDecisionTypes = Set.copyOf(matchedDecisionTypes);
    }

    public String version() {
        return ruleSet.version();
    }
}
