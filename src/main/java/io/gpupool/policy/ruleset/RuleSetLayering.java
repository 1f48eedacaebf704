package io.gpupool.policy.ruleset;

import io.gpupool.policy.ruleset.LayeredRuleSet.Origin;
import io.gpupool.policy.ruleset.LayeredRuleSet.OverriddenRule;
import io.gpupool.policy.ruleset.LayeredRuleSet.Override;
import io.gpupool.policy.ruleset.LayeredRuleSet.ResolvedFile;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Resolves a layered upload (a {@link PolicyManifest} plus only the files it changes) against its
 * base into a complete rule set. The same code resolves the examples in tests, uploads, dry-runs
 * and hot reload, so what an example's tests prove is what the service stores.
 *
 * <p>Guarantees: every override names something the base has (else a {@link LayeringException}
 * naming it — a base that renamed a rule cannot silently bring it back beside its replacement);
 * an upload file at a base path, or an upload rule with a base rule's name, is an error unless
 * declared; a base file cut by rule overrides keeps everything else verbatim, and is dropped when
 * no rule is left in it. Pure: reads only its arguments.
 */
public final class RuleSetLayering {
    private RuleSetLayering() {
    }

    /** The upload resolved against the base its manifest names; an upload without a manifest is returned whole. */
    public static LayeredRuleSet resolve(Map<String, String> upload) {
        if (!upload.containsKey(PolicyManifest.FILE)) {
            return LayeredRuleSet.complete(RuleSet.draft(upload));
        }
        PolicyManifest manifest = PolicyManifest.parse(upload.get(PolicyManifest.FILE));
        return resolve(RuleSetFiles.defaultRuleSet(), manifest, upload);
    }

    /** The upload resolved against {@code base}, whatever its manifest's {@code extends} says (tests of drift). */
    public static LayeredRuleSet resolve(RuleSet base, Map<String, String> upload) {
        String manifest = upload.get(PolicyManifest.FILE);
        if (manifest == null) {
            throw new LayeringException(List.of("The upload has no " + PolicyManifest.FILE + " to resolve"));
        }
        return resolve(base, PolicyManifest.parse(manifest), upload);
    }

    private static LayeredRuleSet resolve(RuleSet base, PolicyManifest manifest, Map<String, String> upload) {
        Map<String, String> overlay = new TreeMap<>(upload);
        overlay.remove(PolicyManifest.FILE);
        List<String> errors = new ArrayList<>();
        Map<String, DrlRules> baseDrl = parseAll(base.ruleFiles(), errors, "base ");
        Map<String, DrlRules> overlayDrl = parseAll(RuleSet.draft(overlay).ruleFiles(), errors, "");
        if (!errors.isEmpty()) {
            throw new LayeringException(errors);
        }
        Map<String, String> baseFileOfRule = ruleFiles(baseDrl);
        Map<String, String> overlayFileOfRule = ruleFiles(overlayDrl);
        Map<String, String> baseFiles = base.files();

        checkFiles(manifest, baseFiles, overlay, errors);
        Set<String> wholeFile = new TreeSet<>(manifest.replaceFiles());
        wholeFile.addAll(manifest.removeFiles());
        checkRules(manifest, baseFileOfRule, overlayFileOfRule, wholeFile, errors);
        if (!errors.isEmpty()) {
            throw new LayeringException(errors);
        }

        Map<String, Set<String>> cutByFile = new TreeMap<>();
        for (String name : union(manifest.replaceRules(), manifest.removeRules())) {
            cutByFile.computeIfAbsent(baseFileOfRule.get(name), f -> new TreeSet<>()).add(name);
        }
        Map<String, String> resolved = new TreeMap<>();
        List<ResolvedFile> files = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (Map.Entry<String, String> file : baseFiles.entrySet()) {
            String path = file.getKey();
            if (manifest.removeFiles().contains(path)) {
                files.add(new ResolvedFile(path, Origin.REMOVED, List.of()));
            } else if (manifest.replaceFiles().contains(path)) {
                resolved.put(path, overlay.get(path));
                files.add(new ResolvedFile(path, Origin.REPLACED, List.of()));
                if (sameContent(path, file.getValue(), overlay.get(path))) {
                    warnings.add(path + " replaces the base file with the same content"
                            + (RuleSet.isRuleFile(path) ? " (at most the package differs)" : "")
                            + ": delete the copy and its replace.files entry, and inherit the file");
                }
            } else if (cutByFile.containsKey(path)) {
                List<String> cut = List.copyOf(cutByFile.get(path));
                String trimmed = baseDrl.get(path).without(cutByFile.get(path));
                if (DrlRules.parse(path, trimmed).rules().isEmpty()) {
                    files.add(new ResolvedFile(path, Origin.REMOVED, cut));
                } else {
                    resolved.put(path, trimmed);
                    files.add(new ResolvedFile(path, Origin.INHERITED_WITHOUT_RULES, cut));
                }
            } else {
                resolved.put(path, file.getValue());
                files.add(new ResolvedFile(path, Origin.INHERITED, List.of()));
            }
        }
        overlay.forEach((path, text) -> {
            if (!baseFiles.containsKey(path)) {
                resolved.put(path, text);
                files.add(new ResolvedFile(path, Origin.ADDED, List.of()));
            }
        });
        files.sort(java.util.Comparator.comparing(ResolvedFile::path));

        List<OverriddenRule> rules = new ArrayList<>();
        for (String name : new TreeSet<>(manifest.replaceRules())) {
            String definedIn = overlayFileOfRule.get(name);
            rules.add(new OverriddenRule(name, baseFileOfRule.get(name), Override.REPLACED, definedIn));
            if (rule(baseDrl, baseFileOfRule.get(name), name).normalised()
                    .equals(rule(overlayDrl, definedIn, name).normalised())) {
                warnings.add("Rule \"" + name + "\" in " + definedIn + " is the same as the base rule in "
                        + baseFileOfRule.get(name) + ": delete the copy and its replace.rules entry, and inherit the rule");
            }
        }
        for (String name : new TreeSet<>(manifest.removeRules())) {
            rules.add(new OverriddenRule(name, baseFileOfRule.get(name), Override.REMOVED, null));
        }
        return new LayeredRuleSet(manifest.base(), RuleSet.draft(resolved), files, rules, warnings);
    }

    private static void checkFiles(PolicyManifest manifest, Map<String, String> baseFiles, Map<String, String> overlay,
                                   List<String> errors) {
        for (String path : new TreeSet<>(manifest.replaceFiles())) {
            if (!baseFiles.containsKey(path)) {
                errors.add("replace.files: '" + path + "' is not a file of the base set, so there is nothing to replace "
                        + "(moved or deleted there?): drop the entry, or list the file's current path");
            } else if (!overlay.containsKey(path)) {
                errors.add("replace.files: '" + path + "' is listed but the upload has no file at that path: "
                        + "add the replacement file, or drop the entry");
            }
        }
        for (String path : new TreeSet<>(manifest.removeFiles())) {
            if (!baseFiles.containsKey(path)) {
                errors.add("remove.files: '" + path + "' is not a file of the base set (moved or deleted there?): "
                        + "drop the entry, or list the file's current path");
            } else if (overlay.containsKey(path)) {
                errors.add("remove.files: '" + path + "' is also in the upload: list it under replace.files "
                        + "to replace it, or delete the upload's copy to remove it");
            }
        }
        for (String path : overlay.keySet()) {
            if (baseFiles.containsKey(path) && !manifest.replaceFiles().contains(path)
                    && !manifest.removeFiles().contains(path)) {
                errors.add("'" + path + "' is also a file of the base set: list it under replace.files to "
                        + "replace that file, or give it a path of its own");
            }
        }
    }

    private static void checkRules(PolicyManifest manifest, Map<String, String> baseFileOfRule,
                                   Map<String, String> overlayFileOfRule, Set<String> wholeFile, List<String> errors) {
        for (String name : new TreeSet<>(manifest.replaceRules())) {
            String baseFile = baseFileOfRule.get(name);
            if (baseFile == null) {
                errors.add("replace.rules: the base set has no rule \"" + name + "\" (renamed or removed there?): "
                        + "drop the entry, or list the base rule's current name");
            } else if (!overlayFileOfRule.containsKey(name)) {
                errors.add("replace.rules: \"" + name + "\" is listed but no rule file of the upload defines a rule "
                        + "of that name: add the replacement rule, or drop the entry");
            } else if (wholeFile.contains(baseFile)) {
                errors.add("replace.rules: \"" + name + "\" lives in " + baseFile + ", which is replaced or removed "
                        + "as a whole: drop the entry");
            }
            if (manifest.removeRules().contains(name)) {
                errors.add("\"" + name + "\" is under both replace.rules and remove.rules: keep one");
            }
        }
        for (String name : new TreeSet<>(manifest.removeRules())) {
            String baseFile = baseFileOfRule.get(name);
            if (baseFile == null) {
                errors.add("remove.rules: the base set has no rule \"" + name + "\" (renamed or removed there?): "
                        + "drop the entry, or list the base rule's current name");
            } else if (overlayFileOfRule.containsKey(name)) {
                errors.add("remove.rules: \"" + name + "\" is defined again in " + overlayFileOfRule.get(name)
                        + ": list it under replace.rules to replace the base rule");
            } else if (wholeFile.contains(baseFile)) {
                errors.add("remove.rules: \"" + name + "\" lives in " + baseFile + ", which is replaced or removed "
                        + "as a whole: drop the entry");
            }
        }
        overlayFileOfRule.forEach((name, file) -> {
            String baseFile = baseFileOfRule.get(name);
            if (baseFile != null && !wholeFile.contains(baseFile) && !manifest.replaceRules().contains(name)
                    && !manifest.removeRules().contains(name)) {
                errors.add("Rule \"" + name + "\" in " + file + " has the name of a rule of the base set (in "
                        + baseFile + "): list it under replace.rules to replace that rule, or rename it");
            }
        });
    }

    private static Map<String, DrlRules> parseAll(Map<String, String> drl, List<String> errors, String prefix) {
        Map<String, DrlRules> parsed = new LinkedHashMap<>();
        drl.forEach((path, text) -> {
            try {
                parsed.put(path, DrlRules.parse(path, text));
            } catch (LayeringException e) {
                e.errors().forEach(error -> errors.add(prefix + error));
            }
        });
        return parsed;
    }

    /** Rule name → the first file defining it (a duplicate is the linter's error to report). */
    private static Map<String, String> ruleFiles(Map<String, DrlRules> parsed) {
        Map<String, String> files = new TreeMap<>();
        parsed.forEach((path, rules) -> rules.rules().forEach(rule -> files.putIfAbsent(rule.name(), path)));
        return files;
    }

    private static DrlRules.Rule rule(Map<String, DrlRules> parsed, String file, String name) {
        return parsed.get(file).rules().stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
    }

    private static boolean sameContent(String path, String base, String replacement) {
        if (RuleSet.isRuleFile(path)) {
            return DrlRules.parse(path, base).bodyNormalised().equals(DrlRules.parse(path, replacement).bodyNormalised());
        }
        return DrlRules.normalised(base).equals(DrlRules.normalised(replacement));
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new TreeSet<>(a);
        all.addAll(b);
        return all;
    }
}
