package io.gpupool.snapshot;

import org.organicdesign.fp.collections.PersistentVector;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A persistent, read-only map that iterates in insertion order; a key put again keeps its place, a
 * key removed and put again goes last (as a {@link java.util.LinkedHashMap} does).
 *
 * <p>Why not pcollections' {@code OrderedPMap}: it keeps two binary trees (a hash tree of ids and a
 * sorted tree of entries), so a mass reclaim's 48,156 notices and 48,156 ends cost two tree paths
 * each, and a lookup walks two trees. Here each entry is a {@link Slot} that knows its place: a
 * {@link HashTrie} finds a key's slot in about three array reads, and a persistent vector (Paguro's
 * port of Clojure's) holds the slots in order, a removed key's place left empty. An {@link Editor}
 * applies a commit's many changes to one private copy of the touched nodes (the tries' transient
 * editing) instead of a new path per change. When more places are empty than full, {@link
 * Editor#done()} renumbers the live slots into a fresh vector (amortised over the removals that
 * emptied them).
 */
final class OrderedIndex<K, V> extends AbstractMap<K, V> {
    private static final OrderedIndex<?, ?> EMPTY = new OrderedIndex<>(HashTrie.empty(), PersistentVector.empty());
    /** Below this many empty places the vector is never renumbered: small maps stay as they are. */
    private static final int RENUMBER_FLOOR = 64;

    private final HashTrie<K, Slot<K, V>> slots;
    private final PersistentVector<Slot<K, V>> order;
    private Set<Map.Entry<K, V>> entries;

    private OrderedIndex(HashTrie<K, Slot<K, V>> slots, PersistentVector<Slot<K, V>> order) {
        this.slots = slots;
        this.order = order;
    }

    @SuppressWarnings("unchecked")
    static <K, V> OrderedIndex<K, V> empty() {
        return (OrderedIndex<K, V>) EMPTY;
    }

    /** A private copy to change; this map is never changed by it. */
    Editor<K, V> edit() {
        return new Editor<>(this);
    }

    @Override
    public V get(Object key) {
        Slot<K, V> slot = slots.get(key);
        return slot == null ? null : slot.value;
    }

    @Override
    public boolean containsKey(Object key) {
        return slots.get(key) != null;
    }

    @Override
    public int size() {
        return slots.size();
    }

    @Override
    public boolean isEmpty() {
        return slots.isEmpty();
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        if (entries == null) {
            entries = new AbstractSet<>() {
                @Override
                public Iterator<Map.Entry<K, V>> iterator() {
                    return new InOrder<>(order.iterator());
                }

                @Override
                public int size() {
                    return slots.size();
                }
            };
        }
        return entries;
    }

    /** How many places the order holds, the empty ones included (for tests of the renumbering). */
    int places() {
        return order.size();
    }

    /** One entry and its place in the order; read-only like the map. */
    static final class Slot<K, V> implements Map.Entry<K, V> {
        private final K key;
        private final V value;
        private final int place;

        Slot(K key, V value, int place) {
            this.key = key;
            this.value = value;
            this.place = place;
        }

        @Override public K getKey() { return key; }
        @Override public V getValue() { return value; }
        @Override public V setValue(V v) { throw new UnsupportedOperationException("a snapshot is read-only"); }

        @Override
        public boolean equals(Object o) {
            return o instanceof Map.Entry<?, ?> e && key.equals(e.getKey()) && java.util.Objects.equals(value, e.getValue());
        }

        @Override
        public int hashCode() {
            return key.hashCode() ^ java.util.Objects.hashCode(value);
        }

        @Override
        public String toString() {
            return key + "=" + value;
        }
    }

    /** The live slots in order, the empty places skipped. */
    private static final class InOrder<K, V> implements Iterator<Map.Entry<K, V>> {
        private final Iterator<Slot<K, V>> places;
        private Slot<K, V> next;

        InOrder(Iterator<Slot<K, V>> places) {
            this.places = places;
            advance();
        }

        private void advance() {
            next = null;
            while (next == null && places.hasNext()) {
                next = places.next();
            }
        }

        @Override
        public boolean hasNext() {
            return next != null;
        }

        @Override
        public Map.Entry<K, V> next() {
            if (next == null) {
                throw new NoSuchElementException();
            }
            Slot<K, V> current = next;
            advance();
            return current;
        }
    }

    /**
     * Changes to a private copy of an index, single-threaded; {@link #done()} hands them over as a
     * new index and ends the editor. The index it came from is left as it was.
     */
    static final class Editor<K, V> {
        private final OrderedIndex<K, V> from;
        private HashTrie.Editor<K, Slot<K, V>> slots;
        private PersistentVector.MutVector<Slot<K, V>> order;
        private boolean done;

        private Editor(OrderedIndex<K, V> from) {
            this.from = from;
        }

        V get(K key) {
            Slot<K, V> slot = slot(key);
            return slot == null ? null : slot.value;
        }

        private Slot<K, V> slot(K key) {
            return slots == null ? from.slots.get(key) : slots.get(key);
        }

        /** Adds the key last, or gives it a new value in its place. */
        void put(K key, V value) {
            open();
            Slot<K, V> old = slots.get(key);
            Slot<K, V> slot = new Slot<>(key, value, old == null ? order.size() : old.place);
            slots.put(key, slot);
            if (old == null) {
                order.append(slot);
            } else {
                order.replace(old.place, slot);
            }
        }

        void remove(K key) {
            Slot<K, V> old = slot(key);
            if (old == null) {
                return;
            }
            open();
            slots.remove(key);
            order.replace(old.place, null);
        }

        OrderedIndex<K, V> done() {
            checkOpen();
            done = true;
            if (slots == null) {
                return from;
            }
            PersistentVector<Slot<K, V>> places = order.immutable();
            int live = slots.size();
            if (live == 0) {
                return empty();
            }
            int empty = places.size() - live;
            if (empty > RENUMBER_FLOOR && empty > live) {
                return renumbered(places);
            }
            return new OrderedIndex<>(slots.done(), places);
        }

        private OrderedIndex<K, V> renumbered(PersistentVector<Slot<K, V>> places) {
            HashTrie.Editor<K, Slot<K, V>> fresh = HashTrie.<K, Slot<K, V>>empty().edit();
            PersistentVector.MutVector<Slot<K, V>> freshOrder = PersistentVector.emptyMutable();
            for (Slot<K, V> slot : places) {
                if (slot != null) {
                    Slot<K, V> moved = new Slot<>(slot.key, slot.value, freshOrder.size());
                    fresh.put(slot.key, moved);
                    freshOrder.append(moved);
                }
            }
            return new OrderedIndex<>(fresh.done(), freshOrder.immutable());
        }

        private void checkOpen() {
            if (done) {
                throw new IllegalStateException("this editor has handed its changes over");
            }
        }

        private void open() {
            checkOpen();
            if (slots == null) {
                slots = from.slots.edit();
                order = from.order.mutable();
            }
        }
    }
}
