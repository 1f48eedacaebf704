package io.gpupool.problem;

import java.util.List;

/**
 * A refusal the caller can act on, with the HTTP status it maps to. Thrown before anything is
 * written, so a refused request never leaves a trace in the database or the working set.
 */
public class ProblemException extends RuntimeException {
    private final int status;
    private final String title;
    private final List<String> errors;

    public ProblemException(int status, String title, String detail, List<String> errors) {
        super(detail);
        this.status = status;
        this.title = title;
        this.errors = errors == null ? List.of() : List.copyOf(errors);
    }

    public int status() { return status; }
    public String title() { return title; }
    public List<String> errors() { return errors; }

    public static ProblemException notFound(String what, String id) {
        return new ProblemException(404, "Not found", "Unknown " + what + " '" + id + "'", List.of());
    }

    public static ProblemException conflict(String detail) {
        return new ProblemException(409, "Conflict", detail, List.of());
    }

    public static ProblemException invalid(String detail) {
        return new ProblemException(400, "Invalid request", detail, List.of());
    }

    public static ProblemException invalid(String detail, List<String> errors) {
        return new ProblemException(400, "Invalid request", detail, errors);
    }

    public static ProblemException forbidden(String detail) {
        return new ProblemException(403, "Forbidden", detail, List.of());
    }

    public static ProblemException unprocessable(String detail, List<String> errors) {
        return new ProblemException(422, "Unprocessable", detail, errors);
    }
}
