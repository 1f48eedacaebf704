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
 * Textual checks a compiler cannot make. Rules run inside the service, so a rule file may only see
 * the policy facts and decisions plus {@code java.lang}/{@code java.util}: anything reaching I/O,
 * reflection, processes, threads or the engine's internals is rejected wherever it appears in the
 * text (comments and strings included — cheaper to rephrase than to prove harmless). Loops are
 * rejected because the firing cap cannot interrupt a consequence that never returns.
 */
public final class RuleSetLinter {
    static final List<String> ALLOWED_IMPORTS = List.of("io.gpupool.policy.fact.", "io.gpupool.policy.decision.",
            "java.lang.", "java.util.");
    private static final int MAX_LINES = 200;
    private static final Pattern RULE = Pattern.compile("(?m)^[ \\t]*rule[ \\t]+(\"([^\"]*)\"|'([^']*)'|(\\S+))");
    private static final Pattern IMPORT = Pattern.compile("(?m)^[ \\t]*import[ \\t]+(?:static[ \\t]+|function[ \\t]+)?([\\w.*]+)");
    private static final Pattern GLOBAL = Pattern.compile("(?m)^[ \\t]*global[ \\t]+([\\w.]+)");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^[ \\t]*package[ \\t]+[\\w.]+");
    private static final Pattern CHOREOGRAPHY = Pattern.compile(
            "(?m)^[ \\t]*(salience|agenda-group|ruleflow-group|activation-group|auto-focus|lock-on-active)\\b");
    private static final Map<Pattern, String> FORBIDDEN = forbidden();

    public List<PolicyMessage> lint(RuleSet ruleSet) {
        List<PolicyMessage> messages = new ArrayList<>();
        Map<String, String> firstSeen = new HashMap<>();
        ruleSet.ruleFiles().forEach((file, text) -> {
            checkRuleNames(file, text, firstSeen, messages);
            checkTypes(file, text, IMPORT, "import", messages);
            checkTypes(file, text, GLOBAL, "global type", messages);
            for (Map.Entry<Pattern, String> f : FORBIDDEN.entrySet()) {
                Matcher m = f.getKey().matcher(text);
                while (m.find()) {
                    messages.add(at(Severity.ERROR, file, text, m.start(), f.getValue() + ": '" + m.group() + "'"));
                }
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

    private static void checkTypes(String file, String text, Pattern pattern, String what,
                                   List<PolicyMessage> messages) {
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            String type = m.group(1);
            if (ALLOWED_IMPORTS.stream().noneMatch(type::startsWith) || type.startsWith("java.lang.reflect")
                    || type.startsWith("java.util.concurrent")) {
                messages.add(at(Severity.ERROR, file, text, m.start(1), "Disallowed " + what + " " + type
                        + ": rules may import only from io.gpupool.policy.fact, io.gpupool.policy.decision, java.lang and java.util"));
            }
        }
    }

    private static Map<Pattern, String> forbidden() {
        Map<Pattern, String> f = new java.util.LinkedHashMap<>();
        f.put(Pattern.compile("\\b(System|Runtime|ProcessBuilder|Process|ClassLoader)\\b"), "Access to the JVM or OS is not allowed");
        f.put(Pattern.compile("\\b(Thread|ThreadLocal|Executors?|CompletableFuture)\\b"), "Threads are not allowed");
        f.put(Pattern.compile("\\bjava\\s*\\.\\s*(io|net|nio)\\b"), "I/O is not allowed");
        f.put(Pattern.compile("\\bjava\\s*\\.\\s*lang\\s*\\.\\s*reflect\\b|\\bClass\\s*\\.\\s*forName\\b|\\bgetClass\\s*\\(|\\.class\\b"),
                "Reflection is not allowed");
        f.put(Pattern.compile("\\b(kcontext|getKieRuntime|getWorkingMemory|getKnowledgeRuntime|onRuleFiring|halt)\\b"),
                "Engine internals are not for rules");
        f.put(Pattern.compile("\\b(modify|update|retract|delete)\\s*\\("), "Rules must not change input facts; record a decision");
        f.put(Pattern.compile("\\b(while|for)\\s*\\(|\\bdo\\s*\\{"), "Loops are not allowed in rules");
        return f;
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
