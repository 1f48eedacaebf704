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
    private final int status;

    CliFailure(int exitCode, String message) {
        this(exitCode, message, 0);
    }

    /** A failure the server answered with HTTP {@code status} (0: no answer, or not the server's). */
    CliFailure(int exitCode, String message, int status) {
        super(message);
        this.exitCode = exitCode;
        this.status = status;
    }

    int exitCode() {
        return exitCode;
    }

    int status() {
        return status;
    }

    static CliFailure usage(String message) {
        return new CliFailure(USAGE, message);
    }
}
