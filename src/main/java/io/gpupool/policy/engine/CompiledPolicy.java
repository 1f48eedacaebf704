package io.gpupool.policy.engine;

import io.gpupool.policy.ruleset.RuleSet;
import org.kie.api.KieBase;
import org.kie.api.runtime.KieSessionsPool;

import java.util.Set;

/**
 * A rule set compiled once and evaluated many times; the {@link KieBase} is thread-safe, so one
 * instance serves every concurrent evaluation. {@code ruleNames} lists every rule (for coverage);
 * {@code matchedDecisionTypes} are the decision types some rule pattern-matches, the only ones
 * worth inserting back into a session. {@code sessions} recycles sessions (reset on dispose, so
 * each evaluation still starts empty) to keep per-request allocation, and GC pauses, small.
 */
public record CompiledPolicy(RuleSet ruleSet, KieBase kieBase, KieSessionsPool sessions, Set<String> ruleNames,
                             Set<Class<?>> matchedDecisionTypes, boolean declaresDecisionsGlobal) {
    public CompiledPolicy {
        ruleNames = Set.copyOf(ruleNames);
        matchedDecisionTypes = Set.copyOf(matchedDecisionTypes);
    }

    public String version() {
        return ruleSet.version();
    }
}
