package io.gpupool.agent;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the values nvidia-smi prints: a number with an optional unit ({@code 81559 MiB},
 * {@code 67.03 W}, {@code 27 C}, {@code 0 %}), or one of the ways it says "no value"
 * ({@code N/A}, {@code [N/A]}, {@code [Not Supported]}, any other bracketed message such as
 * {@code [Requested functionality has been deprecated]}, which become null). A unit other than the
 * expected one is an error naming the field: reading GiB as MiB would be silently wrong by 1024.
 */
final class Readings {
    private static final Pattern NUMBER = Pattern.compile("([-+]?\\d+(?:\\.\\d+)?)\\s*([A-Za-z%/]*)");

    private Readings() {
    }

    static boolean missing(String raw) {
        if (raw == null) {
            return true;
        }
        String v = raw.trim();
        return v.isEmpty() || v.startsWith("[") && v.endsWith("]") || v.equalsIgnoreCase("N/A")
                || v.equalsIgnoreCase("Not Supported") || v.equalsIgnoreCase("Unknown Error");
    }

    /** The text, or null when it says "no value". */
    static String text(String raw) {
        return missing(raw) ? null : raw.trim();
    }

    /** The number in {@code raw}, whose unit must be {@code unit} (or absent); null when missing. */
    static Double number(String field, String raw, String unit) {
        if (missing(raw)) {
            return null;
        }
        Matcher m = NUMBER.matcher(raw.trim());
        if (!m.matches()) {
            throw new ReportFormatException(field + ": expected a number" + (unit.isEmpty() ? "" : " in " + unit)
                    + ", was '" + clip(raw) + "'");
        }
        String given = m.group(2);
        if (!given.isEmpty() && !given.equalsIgnoreCase(unit)) {
            throw new ReportFormatException(field + ": expected " + (unit.isEmpty() ? "no unit" : unit) + ", was '"
                    + clip(raw) + "'");
        }
        return Double.parseDouble(m.group(1));
    }

    static Long whole(String field, String raw, String unit) {
        Double d = number(field, raw, unit);
        return d == null ? null : Math.round(d);
    }

    /** A percentage (0..100, with or without "%") as a fraction 0..1. */
    static Double percent(String field, String raw) {
        Double d = number(field, raw, "%");
        if (d == null) {
            return null;
        }
        if (d < 0 || d > 100) {
            throw new ReportFormatException(field + ": a percentage is 0..100, was '" + clip(raw) + "'");
        }
        return d / 100.0;
    }

    /** "Enabled"/"Disabled" (null when missing). */
    static Boolean enabled(String field, String raw) {
        String v = text(raw);
        if (v == null) {
            return null;
        }
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "enabled", "yes", "on", "true" -> true;
            case "disabled", "no", "off", "false" -> false;
            default -> throw new ReportFormatException(field + ": expected Enabled or Disabled, was '" + clip(raw) + "'");
        };
    }

    static Long sum(Long a, Long b) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        return a + b;
    }

    /** Memory of a MIG profile from its name ({@code 3g.40gb} → 40 GiB in MiB); null if it has none. */
    static Long profileMemoryMib(String profile) {
        if (profile == null) {
            return null;
        }
        Matcher m = Pattern.compile("\\d+g\\.(\\d+)gb").matcher(profile.toLowerCase(Locale.ROOT));
        return m.find() ? Long.parseLong(m.group(1)) * 1024 : null;
    }

    static String clip(String raw) {
        return raw.length() <= 60 ? raw : raw.substring(0, 60) + "…";
    }
}
