package io.gpupool.allocator;

/**
 * What policy answered when last asked who may be preempted on each card, for requests like the one
 * being placed (kept by the caller; the allocator knows nothing of policy). Lets the
 * {@link PreemptionShortlist} look first where victims were named and skip, for a while, cards
 * where policy protects too much of what holds them.
 */
public interface VictimHistory {
    /** Never asked about any card. */
    VictimHistory NONE = new VictimHistory() {
        @Override
        public int namedMilli(int gpu) {
            return -1;
        }

        @Override
        public boolean recent(int gpu) {
            return false;
        }
    };

    /** Milli-GPU held on card {@code gpu} by leases policy named as victims when last asked; -1 if unknown. */
    int namedMilli(int gpu);

    /** Whether that answer is recent enough not to ask again about a card it did not make room on. */
    boolean recent(int gpu);
}
