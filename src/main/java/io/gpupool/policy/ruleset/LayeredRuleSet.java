package io.gpupool.policy.ruleset;

import java.util.List;

/**
 * A rule set as resolved from an upload, and where each of its files came from. For an upload
 * with a {@link PolicyManifest} ({@code base} is then set) {@code files} lists every base file and
 * every file of the upload: inherited as is, inherited without some rules, replaced, removed (also
 * a base file all of whose rules were overridden), or added; {@code rules} lists the base rules
 * replaced or removed by name. {@code warnings} name overrides that change nothing (a copy of the
 * base), which the service accepts and the example tests refuse. An upload without a manifest is
 * complete as it stands: {@code base} is null and the lists are empty.
 */
public record LayeredRuleSet(String base, RuleSet ruleSet, List<ResolvedFile> files, List<OverriddenRule> rules,
                             List<String> warnings) {

    public enum Origin { INHERITED, INHERITED_WITHOUT_RULES, REPLACED, REMOVED, ADDED }

    public enum Override { REPLACED, REMOVED }

    /** {@code rulesCut}: the base rules left out of an inherited file (or of a removed one, when that emptied it). */
    public record ResolvedFile(String path, Origin origin, List<String> rulesCut) {
        public ResolvedFile {
            rulesCut = List.copyOf(rulesCut);
        }
    }

    /** {@code definedIn}: the upload's file holding the replacement; null for a removed rule. */
    public record OverriddenRule(String name, String baseFile, Override override, String definedIn) {
    }

    public LayeredRuleSet {
        files = List.copyOf(files);
        rules = List.copyOf(rules);
        warnings = List.copyOf(warnings);
    }

    static LayeredRuleSet complete(RuleSet ruleSet) {
        return new LayeredRuleSet(null, ruleSet, List.of(), List.of(), List.of());
    }

    public boolean layered() {
        return base != null;
    }
}
