package io.gpupool.store;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ReplayInPartsTest {
    private final List<String> batch = List.of("a", "b", "c", "d", "e");

    @Test
    void aKnownFailedWriteIsReplayedAloneBetweenTheWritesBeforeAndAfterIt() {
        assertThat(new ReplayInParts(new RuntimeException(), 2).parts(batch))
                .containsExactly(List.of("a", "b"), List.of("c"), List.of("d", "e"));
    }

    @Test
    void aFailedFirstOrLastWriteLeavesNoEmptyPart() {
        assertThat(new ReplayInParts(new RuntimeException(), 0).parts(batch))
                .containsExactly(List.of("a"), List.of("b", "c", "d", "e"));
        assertThat(new ReplayInParts(new RuntimeException(), 4).parts(batch))
                .containsExactly(List.of("a", "b", "c", "d"), List.of("e"));
    }

    @Test
    void anUnknownCulpritHalvesTheBatch() {
        assertThat(new ReplayInParts(new RuntimeException(), -1).parts(batch))
                .containsExactly(List.of("a", "b"), List.of("c", "d", "e"));
    }
}
