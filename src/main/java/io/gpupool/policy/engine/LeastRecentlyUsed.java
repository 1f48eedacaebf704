package io.gpupool.policy.engine;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A map in access order that drops its least recently used entry past its capacity, which a caller
 * may widen to hold a whole queue's entries ({@link #roomFor}); single-threaded, like the writers
 * that keep one.
 */
public final class LeastRecentlyUsed<K, V> extends LinkedHashMap<K, V> {
    private final int least;
    private int capacity;

    public LeastRecentlyUsed(int capacity) {
        super(64, 0.75f, true);
        this.least = capacity;
        this.capacity = capacity;
    }

    /**
     * Keeps room for at least {@code entries} with a quarter to spare, never less than the capacity
     * it was made with: a pass over a queue larger than the room would push out each request's entry
     * just before it is asked again.
     */
    public void roomFor(int entries) {
        capacity = Math.max(least, entries + entries / 4);
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > capacity;
    }
}
