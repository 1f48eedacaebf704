package io.gpupool.snapshot;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HashTrieTest {

    /** Keys whose String hashes are equal in whole ("Aa" and "BB" hash alike) or differ in high bits only. */
    private static String key(Random random) {
        int kind = random.nextInt(10);
        if (kind == 0) {
            StringBuilder colliding = new StringBuilder();
            for (int i = 0; i < 3; i++) {
                colliding.append(random.nextBoolean() ? "Aa" : "BB");
            }
            return colliding.toString(); // 8 keys, one hash
        }
        if (kind == 1) {
            return "node-" + random.nextInt(40) + "-gpu-" + random.nextInt(8);
        }
        return "lease-" + random.nextInt(3000);
    }

    @Test
    void everyVersionReadsAsAHashMapGivenTheSameChanges() {
        Random random = new Random(11);
        HashTrie<String, Integer> trie = HashTrie.empty();
        Map<String, Integer> expected = new HashMap<>();
        List<HashTrie<String, Integer>> versions = new ArrayList<>();
        List<Map<String, Integer>> contents = new ArrayList<>();
        for (int batch = 0; batch < 400; batch++) {
            HashTrie.Editor<String, Integer> editor = trie.edit();
            int changes = 1 + random.nextInt(batch % 9 == 0 ? 2000 : 30);
            for (int i = 0; i < changes; i++) {
                String key = key(random);
                if (random.nextInt(batch < 200 ? 4 : 2) == 0) {
                    editor.remove(key);
                    expected.remove(key);
                } else {
                    int value = random.nextInt(1000);
                    editor.put(key, value);
                    expected.put(key, value);
                }
                assertThat(editor.get(key)).isEqualTo(expected.get(key));
                assertThat(editor.size()).isEqualTo(expected.size());
            }
            trie = editor.done();
            assertThat(trie).as("batch %d", batch).isEqualTo(expected);
            assertThat(trie.size()).isEqualTo(expected.size());
            assertThat(trie.entrySet()).hasSize(expected.size());
            for (String k : expected.keySet()) {
                assertThat(trie.get(k)).isEqualTo(expected.get(k));
            }
            assertThat(trie.get("absent")).isNull();
            versions.add(trie);
            contents.add(new HashMap<>(expected));
        }
        for (int v = 0; v < versions.size(); v++) {
            assertThat(versions.get(v)).as("version %d kept as it was", v).isEqualTo(contents.get(v));
        }
    }

    @Test
    void keysWithOneHashAreAllKeptAndFoundAndRemoved() {
        HashTrie.Editor<String, Integer> editor = HashTrie.<String, Integer>empty().edit();
        List<String> colliding = List.of("AaAa", "AaBB", "BBAa", "BBBB");
        assertThat(colliding.stream().map(String::hashCode).distinct()).hasSize(1);
        for (int i = 0; i < colliding.size(); i++) {
            editor.put(colliding.get(i), i);
        }
        editor.put("other", 9);
        HashTrie<String, Integer> all = editor.done();

        HashTrie.Editor<String, Integer> thinning = all.edit();
        thinning.remove("AaBB");
        thinning.put("BBBB", 33);
        HashTrie<String, Integer> thinned = thinning.done();

        assertThat(all).containsOnly(Map.entry("AaAa", 0), Map.entry("AaBB", 1), Map.entry("BBAa", 2),
                Map.entry("BBBB", 3), Map.entry("other", 9));
        assertThat(thinned).containsOnly(Map.entry("AaAa", 0), Map.entry("BBAa", 2), Map.entry("BBBB", 33),
                Map.entry("other", 9));
    }

    @Test
    void twoEditsOfOneVersionDoNotSeeEachOther() {
        HashTrie.Editor<String, Integer> editor = HashTrie.<String, Integer>empty().edit();
        for (int i = 0; i < 5000; i++) {
            editor.put("k" + i, i);
        }
        HashTrie<String, Integer> base = editor.done();

        HashTrie.Editor<String, Integer> left = base.edit();
        HashTrie.Editor<String, Integer> right = base.edit();
        for (int i = 0; i < 5000; i += 2) {
            left.remove("k" + i);
            right.put("k" + i, -i);
        }
        HashTrie<String, Integer> odd = left.done();
        HashTrie<String, Integer> negated = right.done();

        assertThat(odd).hasSize(2500).doesNotContainKey("k0").containsEntry("k1", 1);
        assertThat(negated).hasSize(5000).containsEntry("k0", 0).containsEntry("k2", -2);
        assertThat(base).hasSize(5000).containsEntry("k2", 2).containsEntry("k4", 4);
    }

    @Test
    void anEditThatChangesNothingHandsTheVeryTrieBack() {
        HashTrie.Editor<String, Integer> editor = HashTrie.<String, Integer>empty().edit();
        Integer one = 1;
        editor.put("a", one);
        HashTrie<String, Integer> trie = editor.done();

        HashTrie.Editor<String, Integer> nothing = trie.edit();
        nothing.remove("absent");
        nothing.put("a", one);

        assertThat(nothing.done()).isSameAs(trie);
    }

    @Test
    void removingEveryKeyLeavesTheEmptyTrie() {
        HashTrie.Editor<String, Integer> editor = HashTrie.<String, Integer>empty().edit();
        for (int i = 0; i < 300; i++) {
            editor.put("k" + i, i);
        }
        HashTrie<String, Integer> full = editor.done();
        HashTrie.Editor<String, Integer> emptying = full.edit();
        for (int i = 0; i < 300; i++) {
            emptying.remove("k" + i);
        }

        assertThat(emptying.done()).isEmpty();
        assertThat(full).hasSize(300);
    }

    @Test
    void anEditorHandsItsChangesOverOnceAndRefusesNulls() {
        HashTrie.Editor<String, Integer> editor = HashTrie.<String, Integer>empty().edit();
        assertThatThrownBy(() -> editor.put(null, 1)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> editor.put("a", null)).isInstanceOf(NullPointerException.class);
        editor.put("a", 1);
        editor.done();

        assertThatThrownBy(() -> editor.put("b", 2)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(editor::done).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void itIsReadOnly() {
        HashTrie.Editor<String, Integer> editor = HashTrie.<String, Integer>empty().edit();
        editor.put("a", 1);
        HashTrie<String, Integer> trie = editor.done();

        assertThatThrownBy(() -> trie.put("b", 2)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> trie.entrySet().iterator().next().setValue(3)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(trie.get(null)).isNull();
    }
}
