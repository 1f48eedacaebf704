package io.gpupool.problem;


import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/** Collects field-level errors with their document path; refuses once, with all of them. */
public final class FieldChecks {
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
    private final List<String> errors = new ArrayList<>();

    /** How much of a caller's value a message quotes: enough to recognise it, never the whole of a huge input. */
    public static final int EXCERPT = 64;

    public FieldChecks() {
    }

    /**
     * A short, escaped quotation of a caller's value for a message: at most {@link #EXCERPT}
     * characters (then "…" and the length), control characters and lone surrogates as JSON-style u-escapes,
     * so an answer never grows with the input nor carries text a strict JSON parser refuses.
     */
    public static String excerpt(Object value) {
        return clip(value == null ? "null" : value.toString(), EXCERPT);
    }

    /** {@code text} escaped as {@link #excerpt} does, cut after {@code max} characters. */
    public static String clip(String text, int max) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), max) + 24);
        int shown = 0;
        int i = 0;
        for (; i < text.length() && shown < max; i++, shown++) {
            char c = text.charAt(i);
            boolean pair = Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1));
            if (pair) {
                out.append(c).append(text.charAt(++i));
            } else if (Character.isISOControl(c) || Character.isSurrogate(c) || c == '\u2028' || c == '\u2029') {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        if (i < text.length()) {
            out.append("…(").append(text.length()).append(" characters)");
        }
        return out.toString();
    }

    /** Whether {@code text} is well-formed UTF-16: every surrogate is half of a pair (a lone one has no UTF-8 form). */
    public static boolean wellFormed(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /** The errors found so far, in the order found. */
    public List<String> errors() {
        return List.copyOf(errors);
    }

    public void error(String message) {
        errors.add(message);
    }

    public boolean identifier(String at, String id) {
        if (id == null || !IDENTIFIER.matcher(id).matches()) {
            error(at + ": '" + excerpt(id) + "' is not a valid id (letters, digits, '.', '_', '-'; at most 128; starts with a letter or digit)");
            return false;
        }
        return true;
    }

    public boolean text(String at, String value) {
        if (value == null || value.isBlank()) {
            error(at + ": is required");
            return false;
        }
        return true;
    }

    /** An optional text of at most {@code max} characters (the column's width: longer is refused here, not by the database). */
    public boolean maxLength(String at, String value, int max) {
        if (value != null && value.length() > max) {
            error(at + ": at most " + max + " characters, got " + value.length());
            return false;
        }
        return true;
    }

    public void present(String at, Object value) {
        if (value == null) {
            error(at + ": is required");
        }
    }

    public void reference(String at, String id, Set<String> known, String what) {
        if (id == null) {
            error(at + ": is required");
        } else if (!known.contains(id)) {
            error(at + ": unknown " + what + " '" + excerpt(id) + "'");
        }
    }

    public boolean nonNegative(String at, Long value) {
        if (value != null && value < 0) {
            error(at + ": must be >= 0, was " + value);
            return false;
        }
        return true;
    }

    public boolean positive(String at, Long value) {
        if (value == null || value <= 0) {
            error(at + ": must be > 0, was " + value);
            return false;
        }
        return true;
    }

    public boolean range(String at, int value, int min, int max) {
        if (value < min || value > max) {
            error(at + ": must be between " + min + " and " + max + ", was " + value);
            return false;
        }
        return true;
    }

    public void throwIfAny(String detail) {
        if (!errors.isEmpty()) {
            throw ProblemException.invalid(detail + ": " + errors.size() + " error(s); first: " + errors.get(0), errors);
        }
    }

    /**
     * Checks the ids of one section ({@code section[i].id}: an identifier, once in the section) and
     * returns the ids known once it is applied: {@code known} plus the section's.
     */
    public java.util.Set<String> ids(String section, java.util.List<String> ids, java.util.Set<String> known) {
        java.util.Set<String> all = new java.util.HashSet<>(known);
        java.util.Set<String> inSection = new java.util.HashSet<>();
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.get(i);
            if (identifier(section + "[" + i + "].id", id) && !inSection.add(id)) {
                error(section + "[" + i + "].id: duplicate id '" + excerpt(id) + "' in the document");
            }
            all.add(id);
        }
        return all;
    }
}
