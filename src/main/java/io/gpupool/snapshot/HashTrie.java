package io.gpupool.snapshot;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayDeque;
import java.util.Arrays;
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
    private static final int BITS = 5;
    private static final HashTrie<?, ?> EMPTY = new HashTrie<>(null, 0);

    private final Node root;
    private final int size;
    private Set<Map.Entry<K, V>> entries;

    private HashTrie(Node root, int size) {
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

    /** Spreads String's hash (whose low bits differ little between ids that differ in a last digit) over all 32 bits. */
    private static int hash(Object key) {
        int h = key.hashCode();
        h ^= h >>> 16;
        h *= 0x85EBCA6B;
        return h ^ (h >>> 13);
    }

    @Override
    @SuppressWarnings("unchecked")
    public V get(Object key) {
        return root == null || key == null ? null : (V) root.find(key, hash(key));
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

    /**
     * A node: either a bitmap node (a bit per occupied way; per way a key and its value, or no key
     * and a child node) or, below the hash's last bits, a collision node of keys with one hash. A
     * node whose owner is an editor's token belongs to that editor alone and is changed in place.
     */
    private static final class Node {
        final Object owner;
        final boolean isCollision;
        final int hash;  // collision node: the keys' one hash; bitmap node: unused
        int bitmap;      // bitmap node: the occupied ways; collision node: unused
        Object[] array;  // 2 per way or per colliding key: key, value (or null, child)

        private Node(Object owner, boolean isCollision, int hash, int bitmap, Object[] array) {
            this.owner = owner;
            this.isCollision = isCollision;
            this.hash = hash;
            this.bitmap = bitmap;
            this.array = array;
        }

        static Node bitmap(Object owner, int bitmap, Object[] array) {
            return new Node(owner, false, 0, bitmap, array);
        }

        static Node collision(Object owner, int hash, Object[] array) {
            return new Node(owner, true, hash, 0, array);
        }

        Object find(Object key, int hash) {
            Node node = this;
            int shift = 0;
            while (true) {
                if (node.isCollision) {
                    Object[] a = node.array;
                    for (int i = 0; i < a.length; i += 2) {
                        if (key.equals(a[i])) {
                            return a[i + 1];
                        }
                    }
                    return null;
                }
                int bit = 1 << ((hash >>> shift) & 31);
                if ((node.bitmap & bit) == 0) {
                    return null;
                }
                int i = 2 * Integer.bitCount(node.bitmap & (bit - 1));
                Object k = node.array[i];
                if (k == null) {
                    node = (Node) node.array[i + 1];
                    shift += BITS;
                } else {
                    return k == key || key.equals(k) ? node.array[i + 1] : null;
                }
            }
        }

        /** This node, or (if not owned by {@code owner}) a copy that is, to change in place. */
        private Node owned(Object owner) {
            if (this.owner == owner) {
                return this;
            }
            return new Node(owner, isCollision, hash, bitmap, array.clone());
        }

        /** This node with a new bitmap and array: changed in place if {@code owner}'s, else a new node. */
        private Node with(Object owner, int newBitmap, Object[] newArray) {
            if (this.owner == owner) {
                bitmap = newBitmap;
                array = newArray;
                return this;
            }
            return new Node(owner, isCollision, hash, newBitmap, newArray);
        }

        /** Puts the key; {@code added[0]} is set when the key was not there. Returns the changed node. */
        Node put(Object owner, int shift, int hash, Object key, Object value, boolean[] added) {
            if (isCollision) {
                return putColliding(owner, shift, hash, key, value, added);
            }
            int bit = 1 << ((hash >>> shift) & 31);
            int i = 2 * Integer.bitCount(bitmap & (bit - 1));
            if ((bitmap & bit) == 0) {
                Object[] grown = new Object[array.length + 2];
                System.arraycopy(array, 0, grown, 0, i);
                grown[i] = key;
                grown[i + 1] = value;
                System.arraycopy(array, i, grown, i + 2, array.length - i);
                added[0] = true;
                return with(owner, bitmap | bit, grown);
            }
            Object k = array[i];
            Object v = array[i + 1];
            if (k == null) {
                Node child = (Node) v;
                Node changed = child.put(owner, shift + BITS, hash, key, value, added);
                if (changed == child) {
                    return this;
                }
                Node n = owned(owner);
                n.array[i + 1] = changed;
                return n;
            }
            if (k == key || key.equals(k)) {
                if (v == value) {
                    return this;
                }
                Node n = owned(owner);
                n.array[i + 1] = value;
                return n;
            }
            added[0] = true;
            Node n = owned(owner);
            n.array[i] = null;
            n.array[i + 1] = pair(owner, shift + BITS, hash(k), k, v, hash, key, value);
            return n;
        }

        private Node putColliding(Object owner, int shift, int hash, Object key, Object value, boolean[] added) {
            if (hash != this.hash) {
                // A different hash reaches a collision node only when built from a shallower level: nest it.
                Node nest = bitmap(owner, 1 << ((this.hash >>> shift) & 31), new Object[] {null, this});
                return nest.put(owner, shift, hash, key, value, added);
            }
            for (int i = 0; i < array.length; i += 2) {
                if (key.equals(array[i])) {
                    if (array[i + 1] == value) {
                        return this;
                    }
                    Node n = owned(owner);
                    n.array[i + 1] = value;
                    return n;
                }
            }
            added[0] = true;
            Object[] grown = Arrays.copyOf(array, array.length + 2);
            grown[array.length] = key;
            grown[array.length + 1] = value;
            return with(owner, bitmap, grown);
        }

        private static Node pair(Object owner, int shift, int h1, Object k1, Object v1, int h2, Object k2, Object v2) {
            if (h1 == h2 || shift >= 32) {
                return collision(owner, h1, new Object[] {k1, v1, k2, v2});
            }
            int b1 = (h1 >>> shift) & 31;
            int b2 = (h2 >>> shift) & 31;
            if (b1 == b2) {
                return bitmap(owner, 1 << b1, new Object[] {null, pair(owner, shift + BITS, h1, k1, v1, h2, k2, v2)});
            }
            return b1 < b2
                    ? bitmap(owner, (1 << b1) | (1 << b2), new Object[] {k1, v1, k2, v2})
                    : bitmap(owner, (1 << b1) | (1 << b2), new Object[] {k2, v2, k1, v1});
        }

        /** Removes the key; {@code removed[0]} is set when it was there. Returns the changed node, or null when emptied. */
        Node remove(Object owner, int shift, int hash, Object key, boolean[] removed) {
            if (isCollision) {
                for (int i = 0; i < array.length; i += 2) {
                    if (key.equals(array[i])) {
                        removed[0] = true;
                        if (array.length == 2) {
                            return null;
                        }
                        Object[] shrunk = new Object[array.length - 2];
                        System.arraycopy(array, 0, shrunk, 0, i);
                        System.arraycopy(array, i + 2, shrunk, i, array.length - i - 2);
                        return with(owner, bitmap, shrunk);
                    }
                }
                return this;
            }
            int bit = 1 << ((hash >>> shift) & 31);
            if ((bitmap & bit) == 0) {
                return this;
            }
            int i = 2 * Integer.bitCount(bitmap & (bit - 1));
            Object k = array[i];
            if (k == null) {
                Node child = (Node) array[i + 1];
                Node changed = child.remove(owner, shift + BITS, hash, key, removed);
                if (changed == child) {
                    return this;
                }
                if (changed != null) {
                    Node n = owned(owner);
                    n.array[i + 1] = changed;
                    return n;
                }
                return without(owner, bit, i);
            }
            if (k == key || key.equals(k)) {
                removed[0] = true;
                return without(owner, bit, i);
            }
            return this;
        }

        private Node without(Object owner, int bit, int i) {
            if (bitmap == bit) {
                return null;
            }
            Object[] shrunk = new Object[array.length - 2];
            System.arraycopy(array, 0, shrunk, 0, i);
            System.arraycopy(array, i + 2, shrunk, i, array.length - i - 2);
            return with(owner, bitmap & ~bit, shrunk);
        }
    }

    /** Depth first over the nodes; an editor's later changes never reach a frozen trie's nodes. */
    private static final class Entries<K, V> implements Iterator<Map.Entry<K, V>> {
        private final ArrayDeque<Object[]> arrays = new ArrayDeque<>();
        private final ArrayDeque<Integer> positions = new ArrayDeque<>();
        private Object[] array;
        private int position;
        private Map.Entry<K, V> next;

        Entries(Node root) {
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
                    array = ((Node) v).array;
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
        private Node root;
        private int size;
        private final boolean[] flag = new boolean[1];

        private Editor(HashTrie<K, V> from) {
            this.from = from;
            this.root = from.root;
            this.size = from.size;
        }

        @SuppressWarnings("unchecked")
        V get(Object key) {
            return root == null ? null : (V) root.find(key, hash(key));
        }

        void put(K key, V value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            open();
            flag[0] = false;
            int h = hash(key);
            if (root == null) {
                root = Node.bitmap(token, 1 << (h & 31), new Object[] {key, value});
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
            root = root.remove(token, 0, hash(key), key, flag);
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
