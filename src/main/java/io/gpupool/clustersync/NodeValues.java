package io.gpupool.clustersync;

import io.gpupool.problem.FieldChecks;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The values of one node of an imported document (counts, memory quantities), each checked as it is
 * read; a bad one becomes a problem naming the node's place in the document and the field.
 */
final class NodeValues {
    private static final Pattern WHOLE = Pattern.compile("[-+]?\\d+");
    private static final Pattern WITH_UNIT = Pattern.compile("([-+]?\\d+(?:\\.\\d+)?)\\s*([A-Za-z]+)");

    private final String at;
    private final List<String> problems;
    private final int before;

    NodeValues(String at, List<String> problems) {
        this.at = at;
        this.problems = problems;
        this.before = problems.size();
    }

    boolean clean() {
        return problems.size() == before;
    }

    void problem(String what) {
        problems.add(at + "." + what);
    }

    /** A count: a whole number >= 0; null when absent. */
    Long count(String field, String raw) {
        if (raw == null || raw.isBlank()) {
            return null;
        }
        String v = raw.trim();
        if (WHOLE.matcher(v).matches()) {
            long n = Long.parseLong(v);
            if (n < 0) {
                problem(field + ": a count must be >= 0, was " + n);
                return null;
            }
            return n;
        }
        Matcher u = WITH_UNIT.matcher(v);
        problem(field + ": " + (u.matches() ? "unknown unit '" + FieldChecks.excerpt(u.group(2)) + "' on a count, was '"
                : "expected a whole number, was '") + FieldChecks.excerpt(v) + "'");
        return null;
    }

    /** Memory in MiB: GFD writes a plain number of MiB; {@code Mi}/{@code MiB}/{@code Gi}/{@code GiB} are read too. */
    Long mib(String field, String raw) {
        if (raw == null || raw.isBlank()) {
            return null;
        }
        String v = raw.trim();
        if (WHOLE.matcher(v).matches()) {
            long n = Long.parseLong(v);
            if (n <= 0) {
                problem(field + ": memory must be > 0 MiB, was " + n);
                return null;
            }
            return n;
        }
        Matcher u = WITH_UNIT.matcher(v);
        if (u.matches()) {
            double n = Double.parseDouble(u.group(1));
            String unit = u.group(2);
            Double factor = switch (unit) {
                case "Mi", "MiB" -> 1.0;
                case "Gi", "GiB" -> 1024.0;
                default -> null;
            };
            if (factor == null) {
                problem(field + ": unknown unit '" + FieldChecks.excerpt(unit) + "' (GPU Feature Discovery writes MiB as a plain number; "
                        + "Mi, MiB, Gi, GiB are read too), was '" + FieldChecks.excerpt(v) + "'");
                return null;
            }
            if (n <= 0) {
                problem(field + ": memory must be > 0, was '" + FieldChecks.excerpt(v) + "'");
                return null;
            }
            return Math.round(n * factor);
        }
        problem(field + ": expected MiB as a whole number, was '" + FieldChecks.excerpt(v) + "'");
        return null;
    }
}
