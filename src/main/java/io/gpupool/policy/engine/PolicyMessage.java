package io.gpupool.policy.engine;

/**
 * One finding about a rule set, pointing at a file position when there is one (line/column 0 when
 * unknown). {@code stage} says which step found it: SANDBOX is the check of the compiled rule classes
 * against what rules may reach (policy-authoring.md, "The sandbox"); FLEET and COHERENCE are the checks against the
 * live fleet (literals that name nothing of it; leases the policy would take back right after
 * granting them).
 */
public record PolicyMessage(Stage stage, Severity severity, String file, int line, int column, String text) {
    public enum Stage { COMPILE, LINT, SANDBOX, EVALUATION, TEST, FLEET, COHERENCE }

    public enum Severity { ERROR, WARNING, INFO }

    public static PolicyMessage error(Stage stage, String file, int line, int column, String text) {
        return new PolicyMessage(stage, Severity.ERROR, file, line, column, text);
    }

    public boolean isError() {
        return severity == Severity.ERROR;
    }

    @Override
    public String toString() {
        return severity + " " + stage + " " + (file == null ? "" : file + ":" + line + ":" + column + " ") + text;
    }
}
