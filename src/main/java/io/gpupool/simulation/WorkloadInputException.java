package io.gpupool.simulation;

/**
 * A replay input that does not parse or check, named down to the field: the file, the line (1 is
 * the header; 0 when the file as a whole is wrong) and the column. Raised before any run starts.
 */
public final class WorkloadInputException extends RuntimeException {
    private final String file;
    private final int line;
    private final String field;

    public WorkloadInputException(String file, int line, String field, String problem) {
        super(file + (line > 0 ? ":" + line : "") + (field == null ? "" : ": " + field) + ": " + problem);
        this.file = file;
        this.line = line;
        this.field = field;
    }

    public String file() {
        return file;
    }

    public int line() {
        return line;
    }

    public String field() {
        return field;
    }
}
