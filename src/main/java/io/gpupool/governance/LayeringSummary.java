package io.gpupool.governance;

import io.gpupool.policy.ruleset.LayeredRuleSet;
import io.gpupool.policy.ruleset.LayeredRuleSet.OverriddenRule;
import io.gpupool.policy.ruleset.LayeredRuleSet.ResolvedFile;
import io.gpupool.policy.ruleset.LayeringException;
import io.gpupool.problem.ProblemException;

import java.util.List;
import java.util.Map;

/**
 * How a layered upload was resolved, as the upload and dry-run answers show it: the base, every
 * file with its origin (inherited, inherited without some rules, replaced, removed, added), the
 * base rules replaced or removed by name, and overrides that change nothing. The stored version is
 * the resolved, complete set; the manifest is not stored.
 */
public record LayeringSummary(String base, List<ResolvedFile> files, List<OverriddenRule> rules, List<String> warnings) {

    static LayeringSummary of(LayeredRuleSet layered) {
        return layered.layered()
                ? new LayeringSummary(layered.base(), layered.files(), layered.rules(), layered.warnings())
                : null;
    }

    /**
     * Resolves an upload that carries a {@code policy.yaml}; a manifest that cannot be read is a 400,
     * one that names what the base lacks a 422, each error saying what to fix. Nothing is stored.
     */
    static LayeredRuleSet resolve(Map<String, String> files) {
        try {
            return io.gpupool.policy.ruleset.RuleSetLayering.resolve(files);
        } catch (LayeringException e) {
            if (e.malformedManifest()) {
                throw ProblemException.invalid("The policy manifest (policy.yaml) cannot be read: " + e.getMessage(),
                        e.errors());
            }
            throw new ProblemException(ProblemException.Kind.UNPROCESSABLE, "Layered rule set rejected", "The upload's overrides do not match its base "
                    + "set; nothing was stored: " + e.getMessage(), e.errors());
        }
    }
}
