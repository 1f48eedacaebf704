package io.gpupool.snapshot;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;

/**
 * A persistent, read-only hash map: a hash array mapped trie (Bagwell's, as Clojure lays it out),
 * 32 ways per level, so 50,000 keys sit about three nodes deep. Null keys and null values are not
 * allowed; iteration order is the trie's, not insertion order ({@link OrderedIndex} adds that).
 *
 * <p>Why our own: the snapshot looks leases and per-card usage up millions of times a minute. The
 * library tries at hand either walk a balanced binary tree per lookup (pcollections' {@code
 * HashTreePMap}: ~16 levels at 50,000 keys) or allocate an entry and an option for every lookup
 * (Paguro's). This one answers {@link #get} with a loop and no allocation, and an {@link Editor}
 * changes nodes it has already copied in place (the owner-token transients of Clojure), so a commit
 * of many changes copies each touched node once.
 */
final class HashTrie<K, V> extends AbstractMap<K, V> {
    private static final HashTrie<?, ?> EMPTY = new HashTrie<>(null, 0);

    private final HashTrieNode root;
    private final int size;
    private Set<Map.Entry<K, V>> entries;

    private HashTrie(HashTrieNode root, int size) {
        this.root = root;
        this.size = size;
    }

    @SuppressWarnings("unchecked")
    static <K, V> HashTrie<K, V> empty() {
        return (HashTrie<K, V>) EMPTY;
    }

    /** A private copy to change; this map is never changed by it. */
    Editor<K, V> edit() {
        return new Editor<>(this);
    }

    @Override
    @SuppressWarnings("unchecked")
    public V get(Object key) {
        return root == null || key == null ? null : (V) root.find(key, HashTrieNode.spread(key));
    }

    @Override
    public boolean containsKey(Object key) {
        return get(key) != null;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public boolean isEmpty() {
        return size == 0;
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        if (entries == null) {
            entries = new AbstractSet<>() {
                @Override
                public Iterator<Map.Entry<K, V>> iterator() {
                    return new Entries<>(root);
                }

                @Override
                public int size() {
                    return size;
                }
            };
        }
        return entries;
    }

    /** Depth first over the nodes; an editor's later changes never reach a frozen trie's nodes. */
    private static final class Entries<K, V> implements Iterator<Map.Entry<K, V>> {
        private final ArrayDeque<Object[]> arrays = new ArrayDeque<>();
        private final ArrayDeque<Integer> positions = new ArrayDeque<>();
        private Object[] array;
        private int position;
        private Map.Entry<K, V> next;

        Entries(HashTrieNode root) {
            array = root == null ? new Object[0] : root.array;
            advance();
        }

        @SuppressWarnings("unchecked")
        private void advance() {
            next = null;
            while (next == null) {
                if (position >= array.length) {
                    if (arrays.isEmpty()) {
                        return;
                    }
                    array = arrays.pop();
                    position = positions.pop();
                    continue;
                }
                Object k = array[position];
                Object v = array[position + 1];
                position += 2;
                if (k == null) {
                    arrays.push(array);
                    positions.push(position);
                    array = ((HashTrieNode) v).array;
                    position = 0;
                } else {
                    next = new SimpleImmutableEntry<>((K) k, (V) v);
                }
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
            Map.Entry<K, V> current = next;
            advance();
            return current;
        }
    }

    /**
     * Changes to a private copy of a trie, single-threaded: nodes it copies carry its token and are
     * changed in place after; {@link #done()} hands the result over as a new trie and ends the editor.
     */
    static final class Editor<K, V> {
        private final HashTrie<K, V> from;
        private Object token = new Object();
        private HashTrieNode root;
        private int size;
        private final boolean[] flag = new boolean[1];

        private Editor(HashTrie<K, V> from) {
            this.from = from;
            this.root = from.root;
            this.size = from.size;
        }

        @SuppressWarnings("unchecked")
        V get(Object key) {
            return root == null ? null : (V) root.find(key, HashTrieNode.spread(key));
        }

        void put(K key, V value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            open();
            flag[0] = false;
            int h = HashTrieNode.spread(key);
            if (root == null) {
                root = HashTrieNode.bitmap(token, 1 << (h & 31), new Object[] {key, value});
                size = 1;
                return;
            }
            root = root.put(token, 0, h, key, value, flag);
            if (flag[0]) {
                size++;
            }
        }

        void remove(Object key) {
            open();
            if (root == null) {
                return;
            }
            flag[0] = false;
            root = root.remove(token, 0, HashTrieNode.spread(key), key, flag);
            if (flag[0]) {
                size--;
            }
        }

        int size() {
            return size;
        }

        HashTrie<K, V> done() {
            open();
            token = null; // nodes it owned are frozen from here: a later editor copies them
            if (root == from.root) {
                return from;
            }
            return root == null ? empty() : new HashTrie<>(root, size);
        }

        private void open() {
            if (token == null) {
                throw new IllegalStateException("this editor has handed its changes over");
            }
        }
    }
}
