package io.gpupool.clustersync;

import io.gpupool.agent.NodeReport.MigInstance;
import io.gpupool.catalog.CardCatalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How MIG instances sit on cards when a source counts them per node rather than per card (GPU
 * Feature Discovery, device-plugin capacity, Slurm GRES). A card has 7 compute slices (A30: 4); a
 * profile {@code 3g.40gb} takes 3. Instances are placed largest first, each on the card with the
 * most free slices, which reproduces the layouts mig-parted applies ("all-balanced": the same
 * layout on every card).
 */
final class MigSlices {
    private static final Pattern PROFILE = Pattern.compile("(\\d+)g\\.\\d+gb(\\+me)?", Pattern.CASE_INSENSITIVE);

    private MigSlices() {
    }

    static boolean isProfile(String name) {
        return name != null && PROFILE.matcher(name).matches();
    }

    /** The slices a profile takes ({@code 3g.40gb} → 3). */
    static int slices(String profile) {
        Matcher m = PROFILE.matcher(profile);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a MIG profile: " + profile);
        }
        return Integer.parseInt(m.group(1));
    }

    /** The slices of one card of {@code product} (4 for the A30, 7 for every other MIG family). */
    static int perCard(String product) {
        var model = product == null ? null : CardCatalog.active().resolve(product);
        return model != null && "A30".equals(model.family()) ? 4 : 7;
    }

    /** Instances of one profile a single card holds: 7 of {@code 1g.10gb}, 2 of {@code 3g.40gb}. */
    static int instancesPerCard(String profile, String product) {
        return Math.max(1, perCard(product) / slices(profile));
    }

    /** A profile's instances, {@code count} of them with {@code memoryMib} each. */
    record Kind(String profile, int count, Long memoryMib) {
    }

    /**
     * Spreads the instances over {@code cards} cards; the result has one list per card (some may
     * be empty when there are fewer instances than cards).
     */
    static List<List<MigInstance>> spread(List<Kind> kinds, int cards, String product) {
        int capacity = perCard(product);
        List<List<MigInstance>> out = new ArrayList<>();
        int[] free = new int[cards];
        for (int c = 0; c < cards; c++) {
            out.add(new ArrayList<>());
            free[c] = capacity;
        }
        List<Kind> largestFirst = new ArrayList<>(kinds);
        largestFirst.sort((a, b) -> Integer.compare(slices(b.profile()), slices(a.profile())));
        for (Kind k : largestFirst) {
            for (int i = 0; i < k.count(); i++) {
                int best = 0;
                for (int c = 1; c < cards; c++) {
                    if (free[c] > free[best]) {
                        best = c;
                    }
                }
                free[best] -= slices(k.profile());
                List<MigInstance> on = out.get(best); // the instance ids on the card are not known from counts
                on.add(new MigInstance(null, k.profile().toLowerCase(Locale.ROOT), k.memoryMib(), null, null));
            }
        }
        return out;
    }

    /** The cards {@code kinds} need at least (their slices over a card's). */
    static int cardsNeeded(List<Kind> kinds, String product) {
        int slices = 0;
        for (Kind k : kinds) {
            slices += slices(k.profile()) * k.count();
        }
        int per = perCard(product);
        return (slices + per - 1) / per;
    }
}
