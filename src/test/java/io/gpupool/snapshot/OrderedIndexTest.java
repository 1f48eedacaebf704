package io.gpupool.snapshot;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OrderedIndexTest {

    /** Puts, removes and puts again in random batches: every version reads as a LinkedHashMap given the same changes. */
    @Test
    void everyVersionReadsAsALinkedHashMapGivenTheSameChangesInTheSameOrder() {
        Random random = new Random(7);
        OrderedIndex<String, Integer> index = OrderedIndex.empty();
        LinkedHashMap<String, Integer> expected = new LinkedHashMap<>();
        List<OrderedIndex<String, Integer>> versions = new ArrayList<>();
        List<Map<String, Integer>> contents = new ArrayList<>();
        for (int batch = 0; batch < 300; batch++) {
            OrderedIndex.Editor<String, Integer> editor = index.edit();
            int changes = 1 + random.nextInt(batch % 7 == 0 ? 400 : 20);
            for (int i = 0; i < changes; i++) {
                String key = "k" + random.nextInt(600);
                if (random.nextInt(3) == 0) {
                    editor.remove(key);
                    expected.remove(key);
                } else {
                    int value = random.nextInt(1000);
                    editor.put(key, value);
                    expected.put(key, value);
                }
                assertThat(editor.get(key)).isEqualTo(expected.get(key));
            }
            index = editor.done();
            assertThat(index.size()).isEqualTo(expected.size());
            assertThat(new ArrayList<>(index.entrySet())).as("batch %d", batch).containsExactlyElementsOf(new ArrayList<>(expected.entrySet()));
            assertThat(index).isEqualTo(expected);
            assertThat(index.hashCode()).isEqualTo(expected.hashCode());
            versions.add(index);
            contents.add(new LinkedHashMap<>(expected));
        }
        for (int v = 0; v < versions.size(); v++) {
            assertThat(new ArrayList<>(versions.get(v).entrySet())).as("version %d kept as it was", v)
                    .containsExactlyElementsOf(new ArrayList<>(contents.get(v).entrySet()));
        }
    }

    @Test
    void aKeyPutAgainKeepsItsPlaceAndAKeyRemovedAndPutAgainGoesLast() {
        OrderedIndex.Editor<String, Integer> editor = OrderedIndex.<String, Integer>empty().edit();
        editor.put("a", 1);
        editor.put("b", 2);
        editor.put("c", 3);
        OrderedIndex<String, Integer> abc = editor.done();

        OrderedIndex.Editor<String, Integer> again = abc.edit();
        again.put("a", 9);
        again.remove("b");
        again.put("b", 5);
        OrderedIndex<String, Integer> changed = again.done();

        assertThat(changed.keySet()).containsExactly("a", "c", "b");
        assertThat(changed.values()).containsExactly(9, 3, 5);
        assertThat(abc.keySet()).as("the version edited from").containsExactly("a", "b", "c");
        assertThat(abc.values()).containsExactly(1, 2, 3);
    }

    @Test
    void twoEditsOfOneVersionDoNotSeeEachOther() {
        OrderedIndex.Editor<String, Integer> editor = OrderedIndex.<String, Integer>empty().edit();
        for (int i = 0; i < 2000; i++) {
            editor.put("k" + i, i);
        }
        OrderedIndex<String, Integer> base = editor.done();

        OrderedIndex.Editor<String, Integer> left = base.edit();
        OrderedIndex.Editor<String, Integer> right = base.edit();
        for (int i = 0; i < 2000; i += 2) {
            left.remove("k" + i);
            right.put("k" + i, -i);
        }
        OrderedIndex<String, Integer> odd = left.done();
        OrderedIndex<String, Integer> negated = right.done();

        assertThat(odd).hasSize(1000).doesNotContainKey("k0").containsEntry("k1", 1);
        assertThat(negated).hasSize(2000).containsEntry("k0", 0).containsEntry("k2", -2);
        assertThat(base).hasSize(2000).containsEntry("k2", 2);
    }

    @Test
    void anEditThatChangesNothingHandsTheVeryIndexBack() {
        OrderedIndex.Editor<String, Integer> editor = OrderedIndex.<String, Integer>empty().edit();
        editor.put("a", 1);
        OrderedIndex<String, Integer> one = editor.done();

        OrderedIndex.Editor<String, Integer> nothing = one.edit();
        nothing.remove("absent");

        assertThat(nothing.done()).isSameAs(one);
    }

    @Test
    void emptiedPlacesAreRenumberedOnceMostOfTheOrderIsEmpty() {
        OrderedIndex.Editor<String, Integer> editor = OrderedIndex.<String, Integer>empty().edit();
        for (int i = 0; i < 1000; i++) {
            editor.put("k" + i, i);
        }
        OrderedIndex<String, Integer> full = editor.done();
        OrderedIndex.Editor<String, Integer> thinning = full.edit();
        for (int i = 0; i < 400; i++) {
            thinning.remove("k" + i);
        }
        OrderedIndex<String, Integer> mostlyFull = thinning.done();
        assertThat(mostlyFull.places()).as("400 of 1,000 emptied: kept in place").isEqualTo(1000);

        OrderedIndex.Editor<String, Integer> emptying = mostlyFull.edit();
        for (int i = 400; i < 900; i++) {
            emptying.remove("k" + i);
        }
        emptying.put("late", -1);
        OrderedIndex<String, Integer> sparse = emptying.done();

        assertThat(sparse.places()).as("900 of 1,001 places empty: renumbered").isEqualTo(101);
        assertThat(sparse.keySet()).startsWith("k900", "k901").endsWith("k999", "late");
        OrderedIndex.Editor<String, Integer> after = sparse.edit();
        after.put("k950", 0);
        after.put("later", -2);
        assertThat(after.done().keySet()).as("places after renumbering still keep the order")
                .startsWith("k900").contains("k950").endsWith("late", "later");
    }

    @Test
    void anEditorHandsItsChangesOverOnce() {
        OrderedIndex.Editor<String, Integer> editor = OrderedIndex.<String, Integer>empty().edit();
        editor.put("a", 1);
        editor.done();

        assertThatThrownBy(() -> editor.put("b", 2)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(editor::done).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void itsEntriesAreReadOnly() {
        OrderedIndex.Editor<String, Integer> editor = OrderedIndex.<String, Integer>empty().edit();
        editor.put("a", 1);
        OrderedIndex<String, Integer> index = editor.done();

        assertThatThrownBy(() -> index.put("b", 2)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> index.entrySet().iterator().next().setValue(3)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> index.values().clear()).isInstanceOf(UnsupportedOperationException.class);
    }
}
