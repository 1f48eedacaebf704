package io.gpupool.policy.engine;

import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.sandbox.RuleOrigins;
import org.kie.api.KieBase;
import org.kie.api.runtime.KieSessionsPool;

import java.util.Set;

/**
 * A rule set compiled once and evaluated many times; the {@link KieBase} is thread-safe, so one
 * instance serves every concurrent evaluation. {@code ruleNames} lists every rule (for coverage);
 * {@code matchedDecisionTypes} are the decision types some rule pattern-matches, the only ones
 * worth inserting back into a session. {@code sessions} recycles sessions (reset on dispose, so
 * each evaluation still starts empty) to keep per-request allocation, and GC pauses, small.
 * {@code origins} and {@code generatedClasses} map the executable model's generated classes back to
 * the rules they came from, so an evaluation stopped inside rule code can name the rule.
 * {@code requestIdsAsNames}: its rules use a request's id only to join that request's facts
 * ({@link RequestIdUse}), so requests with equal admission facts but for their ids are decided alike.
 */
public record CompiledPolicy(RuleSet ruleSet, KieBase kieBase, KieSessionsPool sessions, Set<String> ruleNames,
                             Set<Class<?>> matchedDecisionTypes, boolean declaresDecisionsGlobal, RuleOrigins origins,
                             Set<String> generatedClasses, boolean requestIdsAsNames) {
    public CompiledPolicy {
        ruleNames = Set.copyOf(ruleNames);
        matchedDecisionTypes = Set.copyOf(matchedDecisionTypes);
        generatedClasses = Set.copyOf(generatedClasses);
    }

    /** The same compiled rules under another version label (a rule set's content compiles to one base). */
    public CompiledPolicy withRuleSet(RuleSet relabelled) {
        return new CompiledPolicy(relabelled, kieBase, sessions, ruleNames, matchedDecisionTypes, declaresDecisionsGlobal,
                origins, generatedClasses, requestIdsAsNames);
    }

    public String version() {
        return ruleSet.version();
    }
}
