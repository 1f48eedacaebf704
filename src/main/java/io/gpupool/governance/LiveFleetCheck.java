package io.gpupool.governance;

import io.gpupool.policy.check.FleetLiterals;
import io.gpupool.policy.check.ValidationReport;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * A rule set checked against the live fleet (the published snapshot), not only its own fixtures:
 * literals that name nothing of the fleet and cards the catalog cannot resolve (FLEET warnings,
 * {@link FleetLiterals}), and whether the policy keeps what it grants (COHERENCE errors,
 * {@link CoherenceCheck}). Upload, activation and dry-run all run it on what validation compiled.
 */
@Singleton
public class LiveFleetCheck {
    private final WorkingSet workingSet;
    private final CoherenceCheck coherence;
    private final Clock clock;

    LiveFleetCheck(WorkingSet workingSet, CoherenceCheck coherence, Clock clock) {
        this.workingSet = workingSet;
        this.coherence = coherence;
        this.clock = clock;
    }

    /**
     * Findings about {@code ruleSet} on the live fleet; coherence only when validation compiled it
     * and could evaluate it: a rule set whose evaluation was stopped on the test fixtures would spend
     * its whole budget again on each of the check's generated requests.
     */
    public List<PolicyMessage> check(RuleSet ruleSet, ValidationReport report) {
        PoolSnapshot fleet = workingSet.current();
        List<PolicyMessage> messages = new ArrayList<>(FleetLiterals.check(ruleSet, fleet));
        if (report.evaluationErrors().isEmpty()) {
            report.policy().ifPresent(policy -> messages.addAll(coherence.check(policy, fleet, clock.instant())));
        }
        return messages;
    }
}
