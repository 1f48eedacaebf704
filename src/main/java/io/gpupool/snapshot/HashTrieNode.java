package io.gpupool.snapshot;

/**
 * A node of a {@link HashTrie}: either a bitmap node (a bit per occupied way; per way a key and its
 * value, or no key and a child node) or, below the hash's last bits, a collision node of keys with
 * one hash. A node whose owner is an editor's token belongs to that editor alone and is changed in
 * place; every other node is frozen, and copied before a change.
 */
final class HashTrieNode {
    static final int BITS = 5;

    final Object owner;
    final boolean isCollision;
    final int hash;  // collision node: the keys' one hash; bitmap node: unused
    int bitmap;      // bitmap node: the occupied ways; collision node: unused
    Object[] array;  // 2 per way or per colliding key: key, value (or null, child)

    private HashTrieNode(Object owner, boolean isCollision, int hash, int bitmap, Object[] array) {
        this.owner = owner;
        this.isCollision = isCollision;
        this.hash = hash;
        this.bitmap = bitmap;
        this.array = array;
    }

    static HashTrieNode bitmap(Object owner, int bitmap, Object[] array) {
        return new HashTrieNode(owner, false, 0, bitmap, array);
    }

    static HashTrieNode collision(Object owner, int hash, Object[] array) {
        return new HashTrieNode(owner, true, hash, 0, array);
    }

    /** Spreads String's hash (whose low bits differ little between ids that differ in a last digit) over all 32 bits. */
    static int spread(Object key) {
        int h = key.hashCode();
        h ^= h >>> 16;
        h *= 0x85EBCA6B;
        return h ^ (h >>> 13);
    }

    Object find(Object key, int hash) {
        HashTrieNode node = this;
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
                node = (HashTrieNode) node.array[i + 1];
                shift += BITS;
            } else {
                return k == key || key.equals(k) ? node.array[i + 1] : null;
            }
        }
    }

    /** This node, or (if not owned by {@code owner}) a copy that is, to change in place. */
    private HashTrieNode owned(Object owner) {
        if (this.owner == owner) {
            return this;
        }
        return new HashTrieNode(owner, isCollision, hash, bitmap, array.clone());
    }

    /** This node with a new bitmap and array: changed in place if {@code owner}'s, else a new node. */
    private HashTrieNode with(Object owner, int newBitmap, Object[] newArray) {
        if (this.owner == owner) {
            bitmap = newBitmap;
            array = newArray;
            return this;
        }
        return new HashTrieNode(owner, isCollision, hash, newBitmap, newArray);
    }

    /** Puts the key; {@code added[0]} is set when the key was not there. Returns the changed node. */
    HashTrieNode put(Object owner, int shift, int hash, Object key, Object value, boolean[] added) {
        if (isCollision) {
            return putColliding(owner, shift, hash, key, value, added);
        }
        int bit = 1 << ((hash >>> shift) & 31);
        int i = 2 * Integer.bitCount(bitmap & (bit - 1));
        if ((bitmap & bit) == 0) {
            added[0] = true;
            return with(owner, bitmap | bit, withPair(array, i, key, value));
        }
        Object k = array[i];
        Object v = array[i + 1];
        if (k == null) {
            HashTrieNode child = (HashTrieNode) v;
            HashTrieNode changed = child.put(owner, shift + BITS, hash, key, value, added);
            if (changed == child) {
                return this;
            }
            HashTrieNode n = owned(owner);
            n.array[i + 1] = changed;
            return n;
        }
        if (k == key || key.equals(k)) {
            if (v == value) {
                return this;
            }
            HashTrieNode n = owned(owner);
            n.array[i + 1] = value;
            return n;
        }
        added[0] = true;
        HashTrieNode n = owned(owner);
        n.array[i] = null;
        n.array[i + 1] = pair(owner, shift + BITS, spread(k), k, v, hash, key, value);
        return n;
    }

    private HashTrieNode putColliding(Object owner, int shift, int hash, Object key, Object value, boolean[] added) {
        if (hash != this.hash) {
            // A different hash reaches a collision node only when built from a shallower level: nest it.
            HashTrieNode nest = bitmap(owner, 1 << ((this.hash >>> shift) & 31), new Object[] {null, this});
            return nest.put(owner, shift, hash, key, value, added);
        }
        for (int i = 0; i < array.length; i += 2) {
            if (key.equals(array[i])) {
                if (array[i + 1] == value) {
                    return this;
                }
                HashTrieNode n = owned(owner);
                n.array[i + 1] = value;
                return n;
            }
        }
        added[0] = true;
        return with(owner, bitmap, withPair(array, array.length, key, value));
    }

    private static HashTrieNode pair(Object owner, int shift, int h1, Object k1, Object v1, int h2, Object k2, Object v2) {
        if (h1 == h2) { // two other hashes differ in some 5-bit group below shift 32
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
    HashTrieNode remove(Object owner, int shift, int hash, Object key, boolean[] removed) {
        if (isCollision) {
            for (int i = 0; i < array.length; i += 2) {
                if (key.equals(array[i])) {
                    removed[0] = true;
                    if (array.length == 2) {
                        return null;
                    }
                    return with(owner, bitmap, withoutPair(array, i));
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
            HashTrieNode child = (HashTrieNode) array[i + 1];
            HashTrieNode changed = child.remove(owner, shift + BITS, hash, key, removed);
            if (changed == child) {
                return this;
            }
            if (changed != null) {
                HashTrieNode n = owned(owner);
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

    private HashTrieNode without(Object owner, int bit, int i) {
        if (bitmap == bit) {
            return null;
        }
        return with(owner, bitmap & ~bit, withoutPair(array, i));
    }

    /** A copy of {@code array} with the key and value inserted at {@code i}. */
    private static Object[] withPair(Object[] array, int i, Object key, Object value) {
        Object[] grown = new Object[array.length + 2];
        System.arraycopy(array, 0, grown, 0, i);
        grown[i] = key;
        grown[i + 1] = value;
        System.arraycopy(array, i, grown, i + 2, array.length - i);
        return grown;
    }

    /** A copy of {@code array} without the key and value at {@code i}. */
    private static Object[] withoutPair(Object[] array, int i) {
        Object[] shrunk = new Object[array.length - 2];
        System.arraycopy(array, 0, shrunk, 0, i);
        System.arraycopy(array, i + 2, shrunk, i, array.length - i - 2);
        return shrunk;
    }
}

