package io.gpupool.request.scheduling;

import java.time.Instant;

/**
 * An instant's text as string concatenation writes it ({@code String.valueOf}), remembered for the
 * last instant asked: a mass reclaim writes one deadline into thousands of decision messages, and
 * formatting it each time was ~2 % of a worst-case dry-run. One per write; not thread-safe.
 */
final class LastInstantText {
    private Instant last;
    private String text;

    String of(Instant instant) {
        if (instant == null) {
            return "null";
        }
        if (!instant.equals(last)) {
            last = instant;
            text = instant.toString();
        }
        return text;
    }
}
