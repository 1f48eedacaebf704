package io.gpupool.api;

import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;

/**
 * A true/false query parameter, read strictly. Micronaut's own conversion takes any word but a few
 * for false, so {@code dryRun=1} or a typo would apply a cluster import the caller meant to try.
 */
final class QueryFlag {
    private QueryFlag() {
    }

    /** {@code true} or {@code false} in any case; null when absent; else a 400 naming the parameter. */
    static Boolean parse(String name, String value) {
        if (value == null) {
            return null;
        }
        if (value.equalsIgnoreCase("true")) {
            return Boolean.TRUE;
        }
        if (value.equalsIgnoreCase("false")) {
            return Boolean.FALSE;
        }
        throw ProblemException.invalid(name + ": true or false, was '" + FieldChecks.excerpt(value) + "'");
    }
}
