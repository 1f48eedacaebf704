package io.gpupool.agent;

/**
 * A capture the agent cannot read: the message names the field or line, so whoever looks at the
 * tool's output can find it.
 */
public class ReportFormatException extends RuntimeException {
    public ReportFormatException(String message) {
        super(message);
    }

    public ReportFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
