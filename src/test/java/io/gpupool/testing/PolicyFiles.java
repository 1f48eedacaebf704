package io.gpupool.testing;

import io.gpupool.policy.ruleset.RuleSetFiles;

import java.util.Map;
import java.util.TreeMap;

/** Rule-set variants for lifecycle tests, derived from the shipped default set. */
public final class PolicyFiles {
    public static final String RECLAMATION = "reclamation/reclamation.drl";

    /** A rule file that never reaches quiescence: every Tick inserts the next one. */
    public static final String NEVER_QUIESCENT_PATH = "loop/tick.drl";
    public static final String NEVER_QUIESCENT = """
            package io.gpupool.rules.loop;
            import io.gpupool.policy.fact.PoolFact;

            declare Tick
                n : int
            end

            rule "Every pool starts a clock"
            when
                PoolFact( )
            then
                insert(new Tick(0));
            end

            rule "The clock ticks forever"
            when
                $t : Tick( )
            then
                insert(new Tick($t.getN() + 1));
            end
            """;

    private PolicyFiles() {
    }

    public static Map<String, String> defaults() {
        return new TreeMap<>(RuleSetFiles.defaultRuleSet().files());
    }

    /** The default set with a silent lease reclaimed after two minutes without heartbeat instead of five. */
    public static Map<String, String> staleAfterTwoMinutes() {
        Map<String, String> files = defaults();
        files.put(RECLAMATION, files.get(RECLAMATION).replace("heartbeatAgeSeconds > 300", "heartbeatAgeSeconds > 120"));
        return files;
    }

    public static Map<String, String> withFile(Map<String, String> files, String path, String text) {
        Map<String, String> copy = new TreeMap<>(files);
        copy.put(path, text);
        return copy;
    }

    /** A scenario (policy-test format) with one busy training lease whose last heartbeat is 3 minutes old. */
    public static Map<String, Object> quietLeaseScenario() {
        return Map.of(
                "name", "A lease silent for three minutes",
                "given", Map.of(
                        "pools", java.util.List.of(Map.of("id", "training", "tier", "TRAINING")),
                        "tenants", java.util.List.of(Map.of("id", "acme")),
                        "quotas", java.util.List.of(Map.of("tenant", "acme", "pool", "training", "guaranteed", 8)),
                        "nodes", java.util.List.of(Map.of("id", "dgx-1", "gpus", 8, "model", "H100", "nvlink", true,
                                "pool", "training")),
                        "leases", java.util.List.of(Map.of("id", "idle-run", "tenant", "acme", "pool", "training",
                                "kind", "TRAINING", "node", "dgx-1", "gpus", 2, "utilisation", 0.8, "heartbeat", "PT3M",
                                "runtime", "PT3H"))));
    }
}
