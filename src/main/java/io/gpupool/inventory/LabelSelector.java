package io.gpupool.inventory;

import io.gpupool.problem.ProblemException;

import java.util.Map;

/** {@code key=value} (the label has that value) or {@code key} (the label is present). */
public record LabelSelector(String key, String value) {

    public static LabelSelector parse(String text) {
        if (text == null) {
            return null;
        }
        int eq = text.indexOf('=');
        if (text.isBlank() || eq == 0) {
            throw ProblemException.invalid("label filter must be 'key' or 'key=value', was '" + io.gpupool.problem.FieldChecks.excerpt(text) + "'");
        }
        return eq < 0 ? new LabelSelector(text, null) : new LabelSelector(text.substring(0, eq), text.substring(eq + 1));
    }

    public boolean matches(Map<String, String> labels) {
        return value == null ? labels.containsKey(key) : value.equals(labels.get(key));
    }
}
