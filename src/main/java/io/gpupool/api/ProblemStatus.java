package io.gpupool.api;

import io.gpupool.problem.ProblemException;
import io.micronaut.http.HttpStatus;

/** How each kind of refusal is answered over HTTP. */
final class ProblemStatus {
    private ProblemStatus() {
    }

    static HttpStatus of(ProblemException.Kind kind) {
        return switch (kind) {
            case INVALID -> HttpStatus.BAD_REQUEST;
            case FORBIDDEN -> HttpStatus.FORBIDDEN;
            case NOT_FOUND -> HttpStatus.NOT_FOUND;
            case CONFLICT -> HttpStatus.CONFLICT;
            case UNPROCESSABLE -> HttpStatus.UNPROCESSABLE_ENTITY;
            case UNAVAILABLE -> HttpStatus.SERVICE_UNAVAILABLE;
        };
    }
}
