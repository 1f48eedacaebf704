package io.gpupool.metrics;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict reader of the Prometheus text exposition format (0.0.4) for tests: every line is a
 * comment (# HELP / # TYPE), blank, or a sample {@code name{label="value",...} number}; anything else
 * fails. {@link #promtool()} finds promtool for a second opinion when it is installed.
 */
record PrometheusText(List<Sample> samples, Map<String, String> types) {
    record Sample(String name, Map<String, String> labels, double value) {
    }

    private static final Pattern SAMPLE = Pattern.compile(
            "([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+)(?:\\s+-?\\d+)?");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");

    static PrometheusText parse(String text) {
        List<Sample> samples = new ArrayList<>();
        Map<String, String> types = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("# HELP ")) {
                continue;
            }
            if (line.startsWith("# TYPE ")) {
                String[] parts = line.split(" ");
                types.put(parts[2], parts[3]);
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches()) {
                throw new IllegalArgumentException("not a sample line: " + line);
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null && !m.group(2).isEmpty()) {
                Matcher l = LABEL.matcher(m.group(2));
                int end = 0;
                while (l.find() && l.start() == end) {
                    labels.put(l.group(1), l.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
                    end = l.end();
                }
                if (end != m.group(2).length()) {
                    throw new IllegalArgumentException("bad labels: " + line);
                }
            }
            samples.add(new Sample(m.group(1), labels, parseValue(m.group(3))));
        }
        return new PrometheusText(samples, types);
    }

    private static double parseValue(String v) {
        return switch (v) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(v);
        };
    }

    List<Sample> named(String name) {
        return samples.stream().filter(s -> s.name().equals(name)).toList();
    }

    /** The sum of the samples of {@code name} whose labels include all of {@code labels} (name, value, …). */
    double sum(String name, String... labels) {
        Predicate<Sample> match = s -> {
            for (int i = 0; i < labels.length; i += 2) {
                if (!labels[i + 1].equals(s.labels().get(labels[i]))) {
                    return false;
                }
            }
            return true;
        };
        return named(name).stream().filter(match).mapToDouble(Sample::value).sum();
    }

    /** The promtool binary if installed (Debian package prometheus), else null. */
    static Path promtool() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(dir, "promtool");
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** Runs promtool with {@code args} and {@code stdin}; returns its exit code and output. */
    static Result run(Path promtool, String stdin, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(promtool.toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (stdin != null) {
            p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("promtool did not finish: " + command);
        }
        return new Result(p.exitValue(), out);
    }

    record Result(int exitCode, String output) {
    }
}
