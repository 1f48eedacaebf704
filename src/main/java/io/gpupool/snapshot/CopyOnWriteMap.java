package io.gpupool.snapshot;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An insertion-ordered map a builder shares with the snapshot it came from until the first change,
 * then copies once. Inventory, tenants, pools and quotas change rarely, so most commits copy none
 * of them; {@link #freeze()} hands the current map to a snapshot and makes the next change copy again.
 */
final class CopyOnWriteMap<K, V> {
    private Map<K, V> map;
    private boolean owned;
    private boolean modified;

    /** {@code shared} must be read-only: it is handed on as is until the first change. */
    CopyOnWriteMap(Map<K, V> shared) {
        this.map = shared;
    }

    CopyOnWriteMap() {
        this.map = new LinkedHashMap<>();
        this.owned = true;
    }

    void put(K key, V value) {
        own().put(key, value);
        modified = true;
    }

    void remove(K key) {
        if (map.containsKey(key)) {
            own().remove(key);
            modified = true;
        }
    }

    /** Whether anything was put or removed since this map was made from a snapshot's. */
    boolean modified() {
        return modified;
    }

    /** A read-only view for a snapshot; later changes go to a fresh copy and never show through it. */
    Map<K, V> freeze() {
        if (owned) {
            // Wrap once; a map still shared with the snapshot it came from is already read-only.
            map = Collections.unmodifiableMap(map);
            owned = false;
        }
        return map;
    }

    private Map<K, V> own() {
        if (!owned) {
            map = new LinkedHashMap<>(map);
            owned = true;
        }
        return map;
    }
}
