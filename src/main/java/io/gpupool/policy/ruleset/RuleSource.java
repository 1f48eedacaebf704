package io.gpupool.policy.ruleset;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The text of each rule of a rule set, by name, cut from {@code rule "…"} to its closing
 * {@code end} line. Used for per-rule summaries between versions; the compiler stays the authority
 * on what a rule means.
 */
public record RuleSource(String name, String file, String text) {
    private static final Pattern RULE = Pattern.compile(
            "(?ms)^[ \\t]*rule[ \\t]+(?:\"([^\"]*)\"|'([^']*)'|(\\S+)).*?^[ \\t]*end\\b");

    public static Map<String, RuleSource> of(RuleSet ruleSet) {
        Map<String, RuleSource> rules = new LinkedHashMap<>();
        ruleSet.ruleFiles().forEach((file, text) -> {
            Matcher m = RULE.matcher(text);
            while (m.find()) {
                String name = m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3);
                rules.putIfAbsent(name, new RuleSource(name, file, m.group()));
            }
        });
        return rules;
    }

    /** The rule's text with trailing spaces and blank lines ignored, so re-indenting alone is no change. */
    public String normalised() {
        StringBuilder out = new StringBuilder();
        text.lines().map(String::stripTrailing).filter(l -> !l.isBlank()).forEach(l -> out.append(l).append('\n'));
        return out.toString();
    }
}
