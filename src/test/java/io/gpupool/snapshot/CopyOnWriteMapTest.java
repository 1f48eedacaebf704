package io.gpupool.snapshot;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A builder's map shares its snapshot's until the first change, and a frozen map never shows a later change. */
class CopyOnWriteMapTest {
    private static Map<String, Integer> published() {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("h100", 8);
        m.put("t4", 2);
        return java.util.Collections.unmodifiableMap(m);
    }

    @Test
    void anUnchangedMapIsHandedOnAsTheSameInstance() {
        Map<String, Integer> shared = published();
        CopyOnWriteMap<String, Integer> map = new CopyOnWriteMap<>(shared);

        assertThat(map.freeze()).isSameAs(shared);
        assertThat(map.modified()).isFalse();
    }

    @Test
    void theFirstChangeCopiesAndLeavesTheSharedMapAlone() {
        Map<String, Integer> shared = published();
        CopyOnWriteMap<String, Integer> map = new CopyOnWriteMap<>(shared);

        map.put("l4", 4);

        assertThat(shared).containsOnlyKeys("h100", "t4");
        assertThat(map.freeze()).isNotSameAs(shared).containsKeys("h100", "t4", "l4");
        assertThat(map.modified()).isTrue();
    }

    @Test
    void removingAKeyThatIsNotThereIsNoChange() {
        Map<String, Integer> shared = published();
        CopyOnWriteMap<String, Integer> map = new CopyOnWriteMap<>(shared);

        map.remove("a10");

        assertThat(map.modified()).isFalse();
        assertThat(map.freeze()).isSameAs(shared);
    }

    @Test
    void removingAKeyCopiesAndKeepsTheRestInInsertionOrder() {
        CopyOnWriteMap<String, Integer> map = new CopyOnWriteMap<>(published());
        map.put("l4", 4);

        map.remove("t4");

        assertThat(map.freeze().keySet()).containsExactly("h100", "l4");
    }

    @Test
    void aChangeAfterFreezingNeverShowsThroughTheFrozenMap() {
        CopyOnWriteMap<String, Integer> map = new CopyOnWriteMap<>();
        map.put("h100", 8);
        Map<String, Integer> first = map.freeze();

        map.put("h100", 4);
        map.put("t4", 2);
        Map<String, Integer> second = map.freeze();

        assertThat(first).containsExactly(Map.entry("h100", 8));
        assertThat(second).containsExactly(Map.entry("h100", 4), Map.entry("t4", 2));
    }

    @Test
    void aFrozenMapIsReadOnly() {
        CopyOnWriteMap<String, Integer> map = new CopyOnWriteMap<>();
        map.put("h100", 8);

        Map<String, Integer> frozen = map.freeze();

        assertThatThrownBy(() -> frozen.put("t4", 2)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(map.freeze()).as("freezing twice without a change hands on the same map").isSameAs(frozen);
    }
}
