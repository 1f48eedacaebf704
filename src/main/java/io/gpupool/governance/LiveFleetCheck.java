package io.gpupool.governance;

import io.gpupool.policy.check.FleetLiterals;
import io.gpupool.policy.check.ValidationReport;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.ruleset.RuleSetHash;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import java.lang.ref.WeakReference;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A rule set checked against the live fleet (the published snapshot), not only its own fixtures:
 * literals that name nothing of the fleet and cards the catalog cannot resolve (FLEET warnings,
 * {@link FleetLiterals}), and whether the policy keeps what it grants (COHERENCE errors,
 * {@link CoherenceCheck}). Upload, activation and dry-run all run it on what validation compiled.
 * <p>
 * The findings of a rule set's content on one published snapshot are kept (a few, least recently
 * used out) and given again while that snapshot is still the published one: nothing was committed
 * since, so the check would run on the same fleet with the same rules. An upload, its dry-runs and
 * its activation on a quiet fleet pay for one check (at 10,000 GPUs and 50,000 leases it takes
 * seconds: docs/performance.md, "Dry-run at scale"). A check its budget stopped is kept as well:
 * its INFO message says how many of the generated requests it checked, and a repeat would check
 * the same requests in the same order, only as far as the machine's load lets it in the budget.
 */
@Singleton
public class LiveFleetCheck {
    private static final int KEPT = 8;
    private final Supplier<PoolSnapshot> fleet;
    private final CoherenceCheck coherence;
    private final Clock clock;
    /** By content hash and whether coherence was checked: the snapshot checked on (not held alive) and the findings. */
    private final Map<String, Checked> checked = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Checked> eldest) {
            return size() > KEPT;
        }
    };

    private record Checked(WeakReference<PoolSnapshot> fleet, List<PolicyMessage> messages) {
    }

    @Inject
    LiveFleetCheck(WorkingSet workingSet, CoherenceCheck coherence, Clock clock) {
        this(workingSet::current, coherence, clock);
    }

    /** On whichever published snapshot {@code fleet} gives (tests). */
    LiveFleetCheck(Supplier<PoolSnapshot> fleet, CoherenceCheck coherence, Clock clock) {
        this.fleet = fleet;
        this.coherence = coherence;
        this.clock = clock;
    }

    /**
     * Findings about {@code ruleSet} on the live fleet; coherence only when validation compiled it
     * and could evaluate it: a rule set whose evaluation was stopped on the test fixtures would spend
     * its whole budget again on each of the check's generated requests.
     */
    public List<PolicyMessage> check(RuleSet ruleSet, ValidationReport report) {
        PoolSnapshot fleet = this.fleet.get();
        boolean coherent = report.evaluationErrors().isEmpty() && report.policy().isPresent();
        String key = RuleSetHash.sha256(ruleSet) + (coherent ? "+coherence" : "");
        synchronized (checked) {
            Checked known = checked.get(key);
            if (known != null && known.fleet().get() == fleet) {
                return known.messages();
            }
        }
        List<PolicyMessage> messages = new ArrayList<>(FleetLiterals.check(ruleSet, fleet));
        if (coherent) {
            messages.addAll(coherence.check(report.policy().get(), fleet, clock.instant()));
        }
        List<PolicyMessage> found = List.copyOf(messages);
        synchronized (checked) {
            checked.put(key, new Checked(new WeakReference<>(fleet), found));
        }
        return found;
    }
}
