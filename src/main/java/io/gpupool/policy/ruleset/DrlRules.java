package io.gpupool.policy.ruleset;

import org.drools.drl.ast.descr.PackageDescr;
import org.drools.drl.ast.descr.RuleDescr;
import org.drools.drl.parser.DrlParser;
import org.drools.drl.parser.DroolsError;
import org.drools.drl.parser.DroolsParserException;

import java.util.ArrayList;
import java.util.List;

/**
 * The rules of one DRL file, located by Drools' own parser (so a {@code rule} or {@code end} inside
 * a comment, a string or a consequence cannot be mistaken for a boundary), and that file re-emitted
 * without some of them. A cut rule takes the comment lines written directly above it and the blank
 * line after it along, so the rest of the file reads as if the rule had never been there.
 */
public record DrlRules(String file, String text, String packageName, List<Rule> rules) {

    /** One rule: its name and the characters [start, end) from {@code rule} to its closing {@code end}. */
    public record Rule(String name, int line, int start, int end, String text) {
        /** The rule's text with trailing spaces and blank lines ignored, so re-indenting alone is no change. */
        public String normalised() {
            return DrlRules.normalised(text);
        }
    }

    public DrlRules {
        rules = List.copyOf(rules);
    }

    /** Parses {@code text}; a syntax error is reported with the file and line, as the compiler would. */
    public static DrlRules parse(String file, String text) {
        DrlParser parser = new DrlParser();
        PackageDescr descr;
        try {
            descr = parser.parse(false, text);
        } catch (DroolsParserException e) {
            throw new LayeringException(List.of(file + ": cannot be parsed as DRL: " + e.getMessage()));
        }
        if (parser.hasErrors() || descr == null) {
            List<String> errors = new ArrayList<>();
            for (DroolsError error : parser.getErrors()) {
                errors.add(file + ":" + firstLine(error.getLines()) + ": " + error.getMessage().strip());
            }
            throw new LayeringException(errors.isEmpty() ? List.of(file + ": cannot be parsed as DRL") : errors);
        }
        List<Rule> rules = new ArrayList<>();
        for (RuleDescr rule : descr.getRules()) {
            int start = rule.getStartCharacter();
            int end = Math.min(text.length(), rule.getEndCharacter());
            rules.add(new Rule(rule.getName(), rule.getLine(), start, end, text.substring(start, end)));
        }
        return new DrlRules(file, text, descr.getName(), rules);
    }

    /** This file without the named rules (names it does not hold are ignored). */
    public String without(java.util.Set<String> names) {
        StringBuilder out = new StringBuilder();
        int from = 0;
        for (Rule rule : rules) {
            if (!names.contains(rule.name())) {
                continue;
            }
            int cutStart = startOfCommentAbove(rule.start());
            int cutEnd = endOfBlankLineAfter(rule.end());
            out.append(text, from, cutStart);
            from = cutEnd;
        }
        out.append(text.substring(from));
        String kept = out.toString().stripTrailing();
        return kept.isEmpty() ? kept : kept + "\n";
    }

    /** The file's text without its {@code package} line, normalised: two files differing only in package say the same. */
    public String bodyNormalised() {
        String withoutPackage = text.replaceFirst("(?m)^[ \\t]*package[ \\t]+[\\w.]+[ \\t]*;?[ \\t]*$", "");
        return normalised(withoutPackage);
    }

    static String normalised(String text) {
        StringBuilder out = new StringBuilder();
        text.lines().map(String::stripTrailing).filter(l -> !l.isBlank()).forEach(l -> out.append(l).append('\n'));
        return out.toString();
    }

    /** Start of the run of {@code //} lines directly above the line holding {@code offset}, else that line's start. */
    private int startOfCommentAbove(int offset) {
        int lineStart = text.lastIndexOf('\n', offset - 1) + 1;
        while (lineStart > 0) {
            int previousStart = text.lastIndexOf('\n', lineStart - 2) + 1;
            String previous = text.substring(previousStart, lineStart - 1).strip();
            if (!previous.startsWith("//")) {
                break;
            }
            lineStart = previousStart;
        }
        return lineStart;
    }

    /** End of the line holding {@code offset}, plus one following blank line if there is one. */
    private int endOfBlankLineAfter(int offset) {
        int lineEnd = text.indexOf('\n', offset);
        if (lineEnd < 0) {
            return text.length();
        }
        int next = lineEnd + 1;
        int nextEnd = text.indexOf('\n', next);
        if (nextEnd >= 0 && text.substring(next, nextEnd).isBlank()) {
            return nextEnd + 1;
        }
        return next;
    }

    private static int firstLine(int[] lines) {
        return lines == null || lines.length == 0 ? 1 : Math.max(1, lines[0]);
    }
}
