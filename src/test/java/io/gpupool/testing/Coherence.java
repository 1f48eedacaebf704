package io.gpupool.testing;

import io.gpupool.policy.ruleset.RuleSetFiles;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * The default set with its reclamation file as it was before 63322b2 (borrowing-limit reclamation
 * in ELASTIC pools too), which reclaimed borrowed elastic leases ~54 s after granting them. Without
 * the policy test that fix added, it passes validation; only the coherence check catches it.
 */
public final class Coherence {
    public static final String ADMITTING_QUOTA_RULE = "Elastic pool is borrowed by anyone";
    public static final String RECLAIMING_RULE = "Borrowed lease beyond the tenant's borrowing limit is reclaimed";
    /** The policy tests that would fail on it: the one 63322b2 added, and the one for borrowing inside an organisation. */
    private static final java.util.List<String> TESTS_OF_THE_FIXES = java.util.List.of(
            "tests/reclamation-elastic-capacity-is-not-reclaimed-for-the-borrowing-limit.yaml",
            "tests/reclamation-a-team-borrowing-its-organisations-idle-guarantee-is-not-reclaimed.yaml",
            // the old file predates silent-node reclamation (issue 17) as well
            "tests/reclamation-leases-on-a-silent-node-are-reclaimed-after-a-grace-period.yaml");

    private Coherence() {
    }

    public static String oldReclamation() {
        try {
            return Files.readString(Path.of("src/test/resources/coherence/reclamation-before-the-elastic-fix.drl"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The default set with the old reclamation file, without the policy tests that would fail on it. */
    public static Map<String, String> defaultsWithTheOldReclamation() {
        Map<String, String> files = new TreeMap<>(RuleSetFiles.defaultRuleSet().files());
        files.put(PolicyFiles.RECLAMATION, oldReclamation());
        TESTS_OF_THE_FIXES.forEach(files::remove);
        return files;
    }
}
