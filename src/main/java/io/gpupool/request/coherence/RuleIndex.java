package io.gpupool.request.coherence;

import io.gpupool.policy.ruleset.DrlRules;
import io.gpupool.policy.ruleset.LayeringException;
import io.gpupool.policy.ruleset.RuleSet;

import java.util.HashMap;
import java.util.Map;

/** Where each rule of a set is defined (file and line), so a finding can point at it. */
record RuleIndex(Map<String, Where> byName) {
    record Where(String file, int line) {
    }

    static RuleIndex of(RuleSet ruleSet) {
        Map<String, Where> byName = new HashMap<>();
        ruleSet.ruleFiles().forEach((file, text) -> {
            try {
                DrlRules.parse(file, text).rules().forEach(r -> byName.putIfAbsent(r.name(), new Where(file, r.line())));
            } catch (LayeringException e) {
                // a file that does not parse has no rule that could have fired
            }
        });
        return new RuleIndex(byName);
    }

    Where where(String rule) {
        return byName.getOrDefault(rule, new Where(null, 0));
    }

    /** {@code 'name' (file:line)}, or just the quoted name when it is not found. */
    String named(String rule) {
        Where w = byName.get(rule);
        return "'" + rule + "'" + (w == null ? "" : " (" + w.file() + ":" + w.line() + ")");
    }
}
