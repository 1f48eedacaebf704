package io.gpupool.policy.ruleset;

import java.util.Map;
import java.util.TreeMap;

/**
 * A policy as admins edit it: file path → text. {@code *.drl} files are rules; {@code tests/*.yaml}
 * (or {@code .yml}) are its policy tests, which travel with it. Paths are sorted so iteration,
 * hashing and diffs do not depend on upload order. {@code version} is the label stamped on every
 * decision (the main service assigns it; "draft" before upload).
 */
public record RuleSet(String version, Map<String, String> files) {
    public RuleSet {
        files = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(files));
    }

    public static RuleSet draft(Map<String, String> files) {
        return new RuleSet("draft", files);
    }

    public RuleSet withVersion(String newVersion) {
        return new RuleSet(newVersion, files);
    }

    public Map<String, String> ruleFiles() {
        return filter(true);
    }

    public Map<String, String> testFiles() {
        return filter(false);
    }

    public static boolean isRuleFile(String path) {
        return path.endsWith(".drl");
    }

    public static boolean isTestFile(String path) {
        return (path.startsWith("tests/") || path.contains("/tests/")) && (path.endsWith(".yaml") || path.endsWith(".yml"));
    }

    private Map<String, String> filter(boolean rules) {
        TreeMap<String, String> out = new TreeMap<>();
        files.forEach((path, text) -> {
            if (rules ? isRuleFile(path) : isTestFile(path)) {
                out.put(path, text);
            }
        });
        return java.util.Collections.unmodifiableSortedMap(out);
    }
}
