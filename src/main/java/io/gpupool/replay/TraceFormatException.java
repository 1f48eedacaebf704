package io.gpupool.replay;

import java.nio.file.Path;

/** A trace row that cannot be read; names the file and the 1-based line so it can be fixed. */
public final class TraceFormatException extends RuntimeException {
    public TraceFormatException(Path file, int line, String problem) {
        super(file + ":" + line + ": " + problem);
    }
}
