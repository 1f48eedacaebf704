package io.gpupool.problem;

import java.util.List;

/**
 * A refusal the caller can act on, with its kind. Thrown before anything is written, so a refused
 * request never leaves a trace in the database or the working set. How a kind is answered (an
 * HTTP status) is the API's business ({@code api.ProblemStatus}).
 */
public class ProblemException extends RuntimeException {
    /** What kind of refusal: the caller's input, its rights, an unknown id, the state, or the service. */
    public enum Kind {
        /** The input is malformed or out of range. */
        INVALID,
        /** The caller may not do this. */
        FORBIDDEN,
        /** An id names nothing. */
        NOT_FOUND,
        /** The state does not allow it now (already exists, already ended). */
        CONFLICT,
        /** Well-formed, but refused on its content (a rule set that does not validate, a policy refusal). */
        UNPROCESSABLE,
        /** Not now: this instance cannot write, or the write must be retried. */
        UNAVAILABLE
    }

    private final Kind kind;
    private final String title;
    private final List<String> errors;

    public ProblemException(Kind kind, String title, String detail, List<String> errors) {
        super(detail);
        this.kind = kind;
        this.title = title;
        this.errors = errors == null ? List.of() : List.copyOf(errors);
    }

    public Kind kind() { return kind; }
    public String title() { return title; }
    public List<String> errors() { return errors; }

    public static ProblemException notFound(String what, String id) {
        return new ProblemException(Kind.NOT_FOUND, "Not found", "Unknown " + what + " '" + FieldChecks.excerpt(id) + "'", List.of());
    }

    public static ProblemException conflict(String detail) {
        return new ProblemException(Kind.CONFLICT, "Conflict", detail, List.of());
    }

    public static ProblemException invalid(String detail) {
        return new ProblemException(Kind.INVALID, "Invalid request", detail, List.of());
    }

    public static ProblemException invalid(String detail, List<String> errors) {
        return new ProblemException(Kind.INVALID, "Invalid request", detail, errors);
    }

    public static ProblemException forbidden(String detail) {
        return new ProblemException(Kind.FORBIDDEN, "Forbidden", detail, List.of());
    }

    public static ProblemException unprocessable(String detail, List<String> errors) {
        return new ProblemException(Kind.UNPROCESSABLE, "Unprocessable", detail, errors);
    }
}
