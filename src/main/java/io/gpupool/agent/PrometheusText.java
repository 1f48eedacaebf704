package io.gpupool.agent;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Prometheus text exposition format (version 0.0.4), as much of it as a scrape of
 * dcgm-exporter uses: {@code name{label="value",…} value [timestamp]} lines, {@code #} comments
 * (HELP, TYPE) skipped, label values with the escapes {@code \\}, {@code \"} and {@code \n}, and the
 * values {@code NaN}, {@code +Inf} and {@code -Inf}. No parser of this format is published on Maven
 * Central (the Prometheus Java client only writes it), hence these hundred lines.
 */
final class PrometheusText {
    record Sample(String name, Map<String, String> labels, double value, int line) {
        String label(String key) {
            return labels.get(key);
        }
    }

    private PrometheusText() {
    }

    static List<Sample> parse(String text) {
        List<Sample> samples = new ArrayList<>();
        String[] lines = text.split("\\R", -1);
        for (int n = 0; n < lines.length; n++) {
            String line = lines[n].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            samples.add(sample(line, n + 1));
        }
        return samples;
    }

    private static Sample sample(String line, int n) {
        int i = 0;
        while (i < line.length() && isNameChar(line.charAt(i), i == 0)) {
            i++;
        }
        if (i == 0) {
            throw error(n, "expected a metric name");
        }
        String name = line.substring(0, i);
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (true) {
                i = skipSpaces(line, i);
                if (i < line.length() && line.charAt(i) == '}') {
                    i++;
                    break;
                }
                int start = i;
                while (i < line.length() && isNameChar(line.charAt(i), i == start)) {
                    i++;
                }
                if (i == start) {
                    throw error(n, "expected a label name in " + name);
                }
                String key = line.substring(start, i);
                i = skipSpaces(line, i);
                if (i + 1 >= line.length() || line.charAt(i) != '=' || line.charAt(i + 1) != '"') {
                    throw error(n, "label " + key + " of " + name + ": expected =\"…\"");
                }
                i += 2;
                StringBuilder value = new StringBuilder();
                while (true) {
                    if (i >= line.length()) {
                        throw error(n, "label " + key + " of " + name + ": unterminated value");
                    }
                    char c = line.charAt(i++);
                    if (c == '"') {
                        break;
                    }
                    if (c == '\\' && i < line.length()) {
                        char e = line.charAt(i++);
                        value.append(e == 'n' ? '\n' : e);
                    } else {
                        value.append(c);
                    }
                }
                if (labels.put(key, value.toString()) != null) {
                    throw error(n, "label " + key + " of " + name + " is given twice");
                }
                i = skipSpaces(line, i);
                if (i < line.length() && line.charAt(i) == ',') {
                    i++;
                }
            }
        }
        String[] rest = line.substring(i).strip().split("\\s+");
        if (rest.length < 1 || rest[0].isEmpty() || rest.length > 2) {
            throw error(n, name + ": expected a value (and an optional timestamp)");
        }
        return new Sample(name, Map.copyOf(labels), value(rest[0], n, name), n);
    }

    private static double value(String raw, int n, String name) {
        switch (raw) {
            case "NaN": return Double.NaN;
            case "+Inf": case "Inf": return Double.POSITIVE_INFINITY;
            case "-Inf": return Double.NEGATIVE_INFINITY;
            default:
                try {
                    return Double.parseDouble(raw);
                } catch (NumberFormatException e) {
                    throw error(n, name + ": '" + Readings.clip(raw) + "' is not a number");
                }
        }
    }

    private static boolean isNameChar(char c, boolean first) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || !first && c >= '0' && c <= '9';
    }

    private static int skipSpaces(String s, int i) {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    private static ReportFormatException error(int line, String what) {
        return new ReportFormatException("dcgm-exporter scrape line " + line + ": " + what);
    }
}
