package io.gpupool.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;

/**
 * What a command may read of the world around it: the environment (GPUPOOL_URL, GPUPOOL_TOKEN),
 * the home folder holding {@code .config/gpupool/config.yaml}, and where to print. Tests pass
 * their own, so a command never reads System.getenv or System.out directly.
 */
record CliContext(Map<String, String> env, Path home, PrintWriter out, PrintWriter err) {
    static CliContext system() {
        return new CliContext(System.getenv(), Path.of(System.getProperty("user.home")),
                new PrintWriter(System.out, true), new PrintWriter(System.err, true));
    }
}
