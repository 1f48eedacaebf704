package io.gpupool.api;

import io.gpupool.problem.ProblemException;

import java.util.List;

/** One page of a list answer; {@code total} counts every match, not just this page. */
public record Page<T>(List<T> items, int page, int size, long total) {
    public static final int MAX_SIZE = 1000;

    public static <T> Page<T> of(List<T> all, int page, int size) {
        if (page < 0) {
            throw ProblemException.invalid("page must be >= 0, was " + page);
        }
        if (size < 1 || size > MAX_SIZE) {
            throw ProblemException.invalid("size must be between 1 and " + MAX_SIZE + ", was " + size);
        }
        long from = (long) page * size;
        List<T> items = from >= all.size() ? List.of() : all.subList((int) from, (int) Math.min(all.size(), from + size));
        return new Page<>(List.copyOf(items), page, size, all.size());
    }
}
