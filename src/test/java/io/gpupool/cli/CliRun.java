package io.gpupool.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Runs the command line in-process with a given environment and home folder, capturing what it prints. */
final class CliRun {
    record Result(int exitCode, String out, String err) {
    }

    private final Map<String, String> env = new HashMap<>();
    private Path home = Path.of("/nonexistent-home");

    static CliRun against(String url, String token) {
        CliRun run = new CliRun();
        run.env.put("GPUPOOL_URL", url);
        if (token != null) {
            run.env.put("GPUPOOL_TOKEN", token);
        }
        return run;
    }

    static CliRun withoutEnvironment() {
        return new CliRun();
    }

    CliRun home(Path folder) {
        this.home = folder;
        return this;
    }

    CliRun env(String name, String value) {
        env.put(name, value);
        return this;
    }

    Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Cli.run(new CliContext(Map.copyOf(env), home, new PrintWriter(out, true), new PrintWriter(err, true)), args);
        return new Result(code, out.toString(), err.toString());
    }
}
