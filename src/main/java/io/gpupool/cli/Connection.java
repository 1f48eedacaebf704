package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The options every command shares: where the service is, the token, and the output format. A
 * flag wins over the environment (GPUPOOL_URL, GPUPOOL_TOKEN), which wins over the config file
 * ({@code --config}, else {@code ~/.config/gpupool/config.yaml}: {@code url:} and {@code token:}),
 * which wins over http://localhost:8080 and no token.
 */
final class Connection {
    static final String DEFAULT_URL = "http://localhost:8080";

    enum Output { table, json }

    @Option(names = "--url", paramLabel = "URL", description = "service URL (default: GPUPOOL_URL, the config file, "
            + DEFAULT_URL + ")")
    String url;
    @Option(names = "--token", paramLabel = "TOKEN", description = "bearer token (default: GPUPOOL_TOKEN, the config file)")
    String token;
    @Option(names = "--config", paramLabel = "FILE", description = "config file (default: ~/.config/gpupool/config.yaml)")
    Path config;
    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "table",
            description = "table or json (default: ${DEFAULT-VALUE})")
    Output output = Output.table;
    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "30s",
            description = "per-call timeout, e.g. 10s (default: ${DEFAULT-VALUE})")
    String timeout = "30s";

    boolean json() {
        return output == Output.json;
    }

    RestClient client(CliContext context) {
        JsonNode file = readConfig(context);
        String u = firstOf(url, context.env().get("GPUPOOL_URL"), file.path("url").textValue(), DEFAULT_URL);
        String t = firstOf(token, context.env().get("GPUPOOL_TOKEN"), file.path("token").textValue(), null);
        Duration perCall = Durations.parse(timeout);
        if (perCall.isZero() || perCall.isNegative()) {
            throw CliFailure.usage("--timeout: a duration longer than zero, was '" + timeout + "' (use e.g. 10s)");
        }
        return new RestClient(u, t, perCall);
    }

    /** The config file's content (missing when there is none). */
    JsonNode readConfig(CliContext context) {
        Path path = config != null ? config : context.home().resolve(".config/gpupool/config.yaml");
        if (!Files.isRegularFile(path)) {
            if (config != null) {
                throw CliFailure.usage("config file " + config + " does not exist");
            }
            return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
        }
        try {
            JsonNode node = new ObjectMapper(new YAMLFactory()).readTree(path.toFile());
            return node == null ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : node;
        } catch (IOException e) {
            throw CliFailure.usage("config file " + path + " is not readable YAML: " + e.getMessage());
        }
    }

    private static String firstOf(String... values) {
        for (String v : values) {
            if (v != null && !v.isBlank()) {
                return v;
            }
        }
        return null;
    }

    /** Durations as people type them: 500ms, 90s, 15m, 2h, 1d, or plain seconds. */
    static final class Durations {
        private Durations() {
        }

        static Duration parse(String text) {
            String s = text.trim().toLowerCase(java.util.Locale.ROOT);
            try {
                if (s.matches("\\d+")) {
                    return Duration.ofSeconds(Long.parseLong(s));
                }
                if (s.endsWith("ms")) {
                    return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
                }
                long n = Long.parseLong(s.substring(0, s.length() - 1));
                return switch (s.charAt(s.length() - 1)) {
                    case 's' -> Duration.ofSeconds(n);
                    case 'm' -> Duration.ofMinutes(n);
                    case 'h' -> Duration.ofHours(n);
                    case 'd' -> Duration.ofDays(n);
                    default -> throw new NumberFormatException();
                };
            } catch (RuntimeException e) {
                throw CliFailure.usage("not a duration: '" + text + "' (use e.g. 90s, 15m, 2h, 1d)");
            }
        }
    }
}
