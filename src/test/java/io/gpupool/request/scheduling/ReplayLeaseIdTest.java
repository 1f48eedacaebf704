package io.gpupool.request.scheduling;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** A replay names its leases in order, as it always has: the names are in the files it writes. */
class ReplayLeaseIdTest {
    @ParameterizedTest(name = "lease {0} is named as the formatter names it")
    @ValueSource(longs = {1, 9, 10, 12_345, 99_999_999, 100_000_000, 1_234_567_890_123L})
    void aReplayLeaseIsNamedAsTheFormatterNamesIt(long n) {
        assertThat(SimulatedScheduler.replayLeaseId(n)).isEqualTo(String.format("replay-lease-%08d", n));
    }
}
