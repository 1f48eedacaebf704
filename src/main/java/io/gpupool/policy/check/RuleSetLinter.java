package io.gpupool.policy.check;

import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.engine.PolicyMessage.Severity;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import io.gpupool.policy.ruleset.RuleSet;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Style checks a compiler cannot make: duplicate and unquoted rule names, agenda choreography,
 * rules that change their input facts, missing packages, oversized files. It is advice on the
 * text, not security: what rules may reach is enforced on the compiled classes by the sandbox
 * ({@code policy.sandbox}), whatever the spelling, and a loop is stopped by the evaluation budget.
 */
public final class RuleSetLinter {
    private static final int MAX_LINES = 200;
    private static final Pattern RULE = Pattern.compile("(?m)^[ \\t]*rule[ \\t]+(\"([^\"]*)\"|'([^']*)'|(\\S+))");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^[ \\t]*package[ \\t]+[\\w.]+");
    private static final Pattern CHOREOGRAPHY = Pattern.compile(
            "(?m)^[ \\t]*(salience|agenda-group|ruleflow-group|activation-group|auto-focus|lock-on-active)\\b");
    private static final Pattern CHANGES_FACTS = Pattern.compile("\\b(modify|update|retract|delete)\\s*\\(");

    public List<PolicyMessage> lint(RuleSet ruleSet) {
        List<PolicyMessage> messages = new ArrayList<>();
        Map<String, String> firstSeen = new HashMap<>();
        ruleSet.ruleFiles().forEach((file, text) -> {
            checkRuleNames(file, text, firstSeen, messages);
            Matcher changes = CHANGES_FACTS.matcher(text);
            while (changes.find()) {
                messages.add(at(Severity.WARNING, file, text, changes.start(), "'" + changes.group(1)
                        + "': rules should record a decision rather than change input facts (a change re-fires rules)"));
            }
            Matcher choreography = CHOREOGRAPHY.matcher(text);
            while (choreography.find()) {
                messages.add(at(Severity.WARNING, file, text, choreography.start(1), "'" + choreography.group(1)
                        + "': order rules from data (classify, then decide), not agenda choreography"));
            }
            if (!PACKAGE.matcher(text).find()) {
                messages.add(new PolicyMessage(Stage.LINT, Severity.WARNING, file, 1, 1, "No package declaration"));
            }
            long lines = text.lines().count();
            if (lines > MAX_LINES) {
                messages.add(new PolicyMessage(Stage.LINT, Severity.WARNING, file, 1, 1,
                        lines + " lines: split the file by concern (limit " + MAX_LINES + ")"));
            }
        });
        return messages;
    }

    private static void checkRuleNames(String file, String text, Map<String, String> firstSeen,
                                       List<PolicyMessage> messages) {
        Matcher m = RULE.matcher(text);
        while (m.find()) {
            String name = m.group(2) != null ? m.group(2) : m.group(3) != null ? m.group(3) : m.group(4);
            String where = file + ":" + lineOf(text, m.start());
            String previous = firstSeen.putIfAbsent(name, where);
            if (previous != null) {
                messages.add(at(Severity.ERROR, file, text, m.start(1),
                        "Duplicate rule name \"" + name + "\" (first at " + previous + ")"));
            }
            if (m.group(4) != null) {
                messages.add(at(Severity.WARNING, file, text, m.start(1),
                        "Rule name " + name + " is not quoted: name rules with a quoted sentence"));
            }
        }
    }

    private static PolicyMessage at(Severity severity, String file, String text, int offset, String message) {
        int line = lineOf(text, offset);
        int lineStart = text.lastIndexOf('\n', offset - 1) + 1;
        return new PolicyMessage(Stage.LINT, severity, file, line, offset - lineStart + 1, message);
    }

    private static int lineOf(String text, int offset) {
        int line = 1;
        for (int i = 0; i < offset && i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}
