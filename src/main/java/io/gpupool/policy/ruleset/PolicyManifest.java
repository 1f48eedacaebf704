package io.gpupool.policy.ruleset;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code policy.yaml}: a rule set that states only what it changes from a base set.
 *
 * <pre>
 * extends: default                  # the shipped default set (the only base so far)
 * replace:
 *   files: [reclamation/reclamation.drl]          # this upload's file at that path replaces the base's
 *   rules: ["Any other GPU is elastic"]           # a rule of that name in another file of this upload
 * remove:
 *   files: [tests/admission-kind-chooses-pools-in-order.yaml]
 *   rules: ["Node labelled reserved is critical-reserved"]
 * </pre>
 *
 * Every override is declared, so one whose target has left the base is an error, not a silent
 * addition. Unknown keys are errors too (a typo must not drop an override). Resolution:
 * {@link RuleSetLayering}; format and rules: docs/policy-authoring.md, "Layered policies".
 */
public record PolicyManifest(String base, Set<String> replaceFiles, Set<String> replaceRules,
                             Set<String> removeFiles, Set<String> removeRules) {
    public static final String FILE = "policy.yaml";
    public static final String DEFAULT_BASE = "default";
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Set<String> TOP_KEYS = Set.of("extends", "replace", "remove");
    private static final Set<String> LIST_KEYS = Set.of("files", "rules");

    public PolicyManifest {
        replaceFiles = Set.copyOf(replaceFiles);
        replaceRules = Set.copyOf(replaceRules);
        removeFiles = Set.copyOf(removeFiles);
        removeRules = Set.copyOf(removeRules);
    }

    public static PolicyManifest parse(String text) {
        if (text == null || text.isBlank()) {
            throw LayeringException.malformedManifest(List.of(FILE + ": expected a mapping such as 'extends: "
                    + DEFAULT_BASE + "', got an empty file"));
        }
        Object root;
        try {
            // Through the tree: a manifest of comments alone is valid YAML without content (readValue
            // would throw "No content to map"), and is reported as the empty file it is.
            com.fasterxml.jackson.databind.JsonNode tree = YAML.readTree(text);
            root = tree == null || tree.isMissingNode() ? null : YAML.treeToValue(tree, Object.class);
        } catch (JacksonException e) {
            int line = e.getLocation() == null ? 1 : e.getLocation().getLineNr();
            throw LayeringException.malformedManifest(List.of(FILE + ":" + line + ": not valid YAML: " + e.getOriginalMessage()));
        }
        if (!(root instanceof Map<?, ?> map)) {
            throw LayeringException.malformedManifest(List.of(FILE + ": expected a mapping such as 'extends: default', got "
                    + (root == null ? "an empty file" : describe(root))));
        }
        List<String> errors = new ArrayList<>();
        for (Object key : map.keySet()) {
            if (!TOP_KEYS.contains(String.valueOf(key))) {
                errors.add(FILE + ": unknown key '" + key + "'; the keys are extends, replace and remove");
            }
        }
        Object base = map.get("extends");
        if (base == null) {
            errors.add(FILE + ": 'extends' is required: name the base set ('extends: " + DEFAULT_BASE + "')");
        } else if (!DEFAULT_BASE.equals(base)) {
            errors.add(FILE + ": 'extends: " + base + "' names an unknown base; the only base is '" + DEFAULT_BASE
                    + "' (the shipped default rule set)");
        }
        Map<String, Set<String>> replace = section(map, "replace", errors);
        Map<String, Set<String>> remove = section(map, "remove", errors);
        if (!errors.isEmpty()) {
            throw LayeringException.malformedManifest(errors);
        }
        return new PolicyManifest(DEFAULT_BASE, replace.get("files"), replace.get("rules"), remove.get("files"),
                remove.get("rules"));
    }

    private static Map<String, Set<String>> section(Map<?, ?> root, String name, List<String> errors) {
        Map<String, Set<String>> lists = new java.util.HashMap<>(Map.of("files", Set.of(), "rules", Set.of()));
        Object value = root.get(name);
        if (value == null) {
            return lists;
        }
        if (!(value instanceof Map<?, ?> section)) {
            errors.add(FILE + ": '" + name + "' must hold 'files' and/or 'rules' lists, got " + describe(value));
            return lists;
        }
        for (Map.Entry<?, ?> entry : section.entrySet()) {
            String key = String.valueOf(entry.getKey());
            if (!LIST_KEYS.contains(key)) {
                errors.add(FILE + ": unknown key '" + name + "." + key + "'; '" + name + "' holds 'files' and 'rules'");
                continue;
            }
            if (!(entry.getValue() instanceof List<?> items)) {
                errors.add(FILE + ": '" + name + "." + key + "' must be a list, got " + describe(entry.getValue()));
                continue;
            }
            Set<String> names = new LinkedHashSet<>();
            for (Object item : items) {
                if (!(item instanceof String s) || s.isBlank()) {
                    errors.add(FILE + ": '" + name + "." + key + "' holds " + describe(item)
                            + "; list " + ("files".equals(key) ? "paths such as tiering/device-tiers.drl" : "quoted rule names"));
                } else if (!names.add(s.strip())) {
                    errors.add(FILE + ": '" + name + "." + key + "' lists '" + s + "' twice");
                }
            }
            lists.put(key, names);
        }
        return lists;
    }

    private static String describe(Object value) {
        if (value == null) {
            return "nothing";
        }
        if (value instanceof Map<?, ?>) {
            return "a mapping";
        }
        if (value instanceof List<?>) {
            return "a list";
        }
        return "'" + value + "'";
    }
}
