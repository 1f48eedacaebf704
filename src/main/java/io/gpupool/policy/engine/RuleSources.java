package io.gpupool.policy.engine;

import io.gpupool.policy.engine.PolicyMessage.Severity;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.sandbox.RuleClassViolation;
import io.gpupool.policy.sandbox.RuleSandbox;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Points findings about generated classes back at the author's text: the file and line where a
 * rule, query or function is declared, or where an expression the compiler names appears.
 */
final class RuleSources {
    record Position(String file, int line, int column) {
        Position(String file, int line) {
            this(file, line, 1);
        }
    }

    private static final Pattern ORIGIN = Pattern.compile("^(rule|query|function|declare) \"?(.*?)\"?$");
    private final RuleSet ruleSet;

    private RuleSources(RuleSet ruleSet) {
        this.ruleSet = ruleSet;
    }

    static RuleSources of(RuleSet ruleSet) {
        return new RuleSources(ruleSet);
    }

    /** Where {@code origin} ("rule \"name\"", "query name", "function name") is declared. */
    Optional<Position> declaration(String origin) {
        Matcher m = ORIGIN.matcher(origin);
        if (!m.matches()) {
            return Optional.empty();
        }
        String name = Pattern.quote(m.group(2));
        Pattern declared = switch (m.group(1)) {
            case "rule" -> Pattern.compile("(?m)^[ \\t]*rule[ \\t]+(\"" + name + "\"|'" + name + "'|" + name + "\\b)");
            case "declare" -> Pattern.compile("(?m)^[ \\t]*declare[ \\t]+" + name + "\\b");
            case "query" -> Pattern.compile("(?m)^[ \\t]*query[ \\t]+(\"" + name + "\"|" + name + "\\b)");
            default -> Pattern.compile("(?m)^[ \\t]*function[ \\t]+[\\w.<>\\[\\], ]+?[ \\t]+" + name + "[ \\t]*\\(");
        };
        for (Map.Entry<String, String> file : ruleSet.ruleFiles().entrySet()) {
            Matcher found = declared.matcher(file.getValue());
            if (found.find()) {
                return Optional.of(new Position(file.getKey(), lineOf(file.getValue(), found.start())));
            }
        }
        return Optional.empty();
    }

    /** The first place a piece of text the compiler quoted appears. */
    Optional<Position> occurrence(String snippet) {
        if (snippet == null || snippet.isBlank()) {
            return Optional.empty();
        }
        for (Map.Entry<String, String> file : ruleSet.ruleFiles().entrySet()) {
            String text = file.getValue();
            int at = text.indexOf(snippet.strip());
            if (at >= 0) {
                return Optional.of(new Position(file.getKey(), lineOf(text, at), at - text.lastIndexOf('\n', at - 1)));
            }
        }
        return Optional.empty();
    }

    /** One error per refused reference, grouped by the rule (or function) that makes it. */
    List<PolicyMessage> refusals(RuleSandbox.Secured secured) {
        Map<String, PolicyMessage> byText = new LinkedHashMap<>();
        for (RuleClassViolation v : secured.violations()) {
            List<String> origins = secured.origins().of(v.className().replace('.', '/'), v.method());
            if (origins.isEmpty()) {
                String dotted = v.className().replace('/', '.');
                String declared = "declare " + dotted.substring(dotted.lastIndexOf('.') + 1);
                origins = declaration(declared).isPresent() ? List.of(declared) : origins;
            }
            String who = origins.isEmpty() ? "generated code of the rule set" : String.join(", ", origins);
            Optional<Position> at = origins.stream().map(this::declaration).flatMap(Optional::stream).findFirst();
            String text = who + " uses " + v.reference() + ": " + v.reason();
            byText.putIfAbsent(text, new PolicyMessage(Stage.SANDBOX, Severity.ERROR, at.map(Position::file).orElse(null),
                    at.map(Position::line).orElse(0), at.isPresent() ? 1 : 0, text));
        }
        return new ArrayList<>(byText.values());
    }

    /** Gives compile errors without a line (the executable model reports some so) the line of the expression they quote. */
    List<PolicyMessage> locate(List<PolicyMessage> messages) {
        List<PolicyMessage> out = new ArrayList<>();
        for (PolicyMessage m : messages) {
            if (m.line() > 0 || !m.isError()) {
                out.add(m);
                continue;
            }
            String text = m.text();
            int colon = text.lastIndexOf(": ");
            Optional<Position> at = colon < 0 ? Optional.empty() : occurrence(text.substring(colon + 2).lines().findFirst().orElse(""));
            out.add(at.map(p -> new PolicyMessage(m.stage(), m.severity(), p.file(), p.line(), p.column(), text)).orElse(m));
        }
        return out;
    }

    static int lineOf(String text, int offset) {
        int line = 1;
        for (int i = 0; i < offset && i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}
