package io.gpupool.policy.ruleset;

import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import com.github.difflib.patch.Patch;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * What changed between two versions of a rule set: rules added, removed and changed by name (a
 * rule moved to another file unchanged is not a change), and a unified diff of every file for
 * reviewers. Pure: computes from the two sets only.
 */
public record RuleSetComparison(List<String> added, List<String> removed, List<String> changed, String unifiedDiff) {
    private static final int CONTEXT_LINES = 3;

    public RuleSetComparison {
        added = List.copyOf(added);
        removed = List.copyOf(removed);
        changed = List.copyOf(changed);
    }

    public static RuleSetComparison between(RuleSet before, RuleSet after) {
        Map<String, RuleSource> old = RuleSource.of(before);
        Map<String, RuleSource> now = RuleSource.of(after);
        List<String> added = new ArrayList<>();
        List<String> removed = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        for (String name : new TreeSet<>(now.keySet())) {
            RuleSource was = old.get(name);
            if (was == null) {
                added.add(name);
            } else if (!was.normalised().equals(now.get(name).normalised())) {
                changed.add(name);
            }
        }
        for (String name : new TreeSet<>(old.keySet())) {
            if (!now.containsKey(name)) {
                removed.add(name);
            }
        }
        return new RuleSetComparison(added, removed, changed, unifiedDiff(before, after));
    }

    public boolean identicalRules() {
        return added.isEmpty() && removed.isEmpty() && changed.isEmpty();
    }

    private static String unifiedDiff(RuleSet before, RuleSet after) {
        TreeSet<String> paths = new TreeSet<>(before.files().keySet());
        paths.addAll(after.files().keySet());
        StringBuilder out = new StringBuilder();
        for (String path : paths) {
            List<String> a = lines(before.files().get(path));
            List<String> b = lines(after.files().get(path));
            Patch<String> patch = DiffUtils.diff(a, b);
            if (patch.getDeltas().isEmpty()) {
                continue;
            }
            String from = before.files().containsKey(path) ? "a/" + path : "/dev/null";
            String to = after.files().containsKey(path) ? "b/" + path : "/dev/null";
            UnifiedDiffUtils.generateUnifiedDiff(from, to, a, patch, CONTEXT_LINES)
                    .forEach(line -> out.append(line).append('\n'));
        }
        return out.toString();
    }

    private static List<String> lines(String text) {
        return text == null ? List.of() : text.lines().toList();
    }
}
