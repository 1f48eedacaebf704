package io.gpupool.replay;

import java.util.ArrayList;
import java.util.List;

/** Parses "42-51", "42,43,50" or "7" into seeds. */
final class SeedRange {
    private SeedRange() {
    }

    static List<Long> parse(String text) {
        List<Long> seeds = new ArrayList<>();
        for (String part : text.split(",")) {
            String p = part.trim();
            int dash = p.indexOf('-', 1);
            try {
                if (dash > 0) {
                    long from = Long.parseLong(p.substring(0, dash).trim());
                    long to = Long.parseLong(p.substring(dash + 1).trim());
                    if (to < from) {
                        throw new IllegalArgumentException("empty seed range '" + p + "'");
                    }
                    for (long s = from; s <= to; s++) {
                        seeds.add(s);
                    }
                } else if (!p.isEmpty()) {
                    seeds.add(Long.parseLong(p));
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad seed list '" + text + "'", e);
            }
        }
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("no seeds in '" + text + "'");
        }
        return seeds;
    }
}
