package io.gpupool.policy.scenario;

import java.util.Set;
import java.util.TreeSet;

/** Which rules fired in at least one policy test, and which never did (untested rules). */
public record RuleCoverage(Set<String> fired, Set<String> neverFired) {
    public RuleCoverage {
        fired = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(fired));
        neverFired = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(neverFired));
    }

    public double ratio() {
        int total = fired.size() + neverFired.size();
        return total == 0 ? 1.0 : (double) fired.size() / total;
    }
}
