package io.gpupool.cli;

/**
 * An outcome that ends a command with a non-zero exit code and one line on stderr: the server's
 * RFC 7807 {@code detail} when it refused, else what went wrong. The codes are those of docs/cli.md.
 */
final class CliFailure extends RuntimeException {
    static final int REFUSED = 1;
    static final int USAGE = 2;
    static final int UNREACHABLE = 3;

    private final int exitCode;

    CliFailure(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }

    static CliFailure usage(String message) {
        return new CliFailure(USAGE, message);
    }
}
