package io.gpupool.policy.ruleset;

import java.util.List;

/**
 * A layered rule set that cannot be resolved: a malformed manifest, or an override that names a
 * file or rule the base does not have. Each error names the file or rule and says what to change.
 */
public class LayeringException extends IllegalArgumentException {
    private final List<String> errors;
    private final boolean malformedManifest;

    public LayeringException(List<String> errors) {
        this(errors, false);
    }

    LayeringException(List<String> errors, boolean malformedManifest) {
        super(errors.size() == 1 ? errors.get(0) : errors.size() + " problems: " + String.join("; ", errors));
        this.errors = List.copyOf(errors);
        this.malformedManifest = malformedManifest;
    }

    static LayeringException malformedManifest(List<String> errors) {
        return new LayeringException(errors, true);
    }

    /** True when the manifest itself cannot be read (YAML, keys, types); false when it names what the base lacks. */
    public boolean malformedManifest() {
        return malformedManifest;
    }

    public List<String> errors() {
        return errors;
    }
}
