package io.gpupool.policy.sandbox;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The sandbox a rule set runs in, applied to the classes its build produced before any of them is
 * loaded: every class is verified against the allowlist ({@link RuleClassVerifier}); only a rule set
 * with no violation is instrumented with the evaluation budget ({@link RuleClassInstrumenter}) and
 * may be loaded. The engine on the classpath is the executable model alone (no MVEL interpreter),
 * so every constraint, consequence, function, {@code eval}, {@code from} and accumulate of every
 * dialect is one of these classes: nothing a rule does escapes the check.
 */
public final class RuleSandbox {
    private final RuleClassVerifier verifier = new RuleClassVerifier();
    private final RuleClassInstrumenter instrumenter = new RuleClassInstrumenter();

    /** What the sandbox found and made of a build's classes. */
    public record Secured(List<RuleClassViolation> violations, RuleOrigins origins, Set<String> classNames) {
        public boolean safe() {
            return violations.isEmpty();
        }
    }

    /**
     * Verifies the classes in {@code classFiles} (path {@code a/b/C.class} → bytes) and, when none
     * violates the allowlist, hands each instrumented version to {@code replace} (path, bytes).
     */
    public Secured secure(Map<String, byte[]> classFiles, java.util.function.BiConsumer<String, byte[]> replace) {
        Map<String, byte[]> byName = new HashMap<>();
        classFiles.forEach((path, bytes) -> {
            if (path.endsWith(".class")) {
                byName.put(path.substring(0, path.length() - ".class".length()), bytes);
            }
        });
        List<RuleClassViolation> violations = verifier.verify(byName);
        RuleOrigins origins = RuleOrigins.of(byName);
        if (violations.isEmpty()) {
            for (String name : byName.keySet()) {
                replace.accept(name + ".class", instrumenter.instrument(byName.get(name)));
            }
        }
        return new Secured(violations, origins, Set.copyOf(byName.keySet()));
    }
}
