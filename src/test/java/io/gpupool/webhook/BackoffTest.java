package io.gpupool.webhook;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackoffTest {
    private final Backoff backoff = new Backoff(Duration.ofSeconds(10), Duration.ofHours(1));

    @ParameterizedTest(name = "after failure {0} the wait is between {1} and {2} s")
    @CsvSource({"1, 5, 10", "2, 10, 20", "3, 20, 40", "4, 40, 80", "9, 1280, 2560", "10, 1800, 3600", "30, 1800, 3600"})
    void theWaitDoublesWithEachFailureUpToTheCapAndKeepsARandomHalf(int failures, long least, long most) {
        assertThat(backoff.after(failures, 0.0)).isEqualTo(Duration.ofSeconds(least));
        assertThat(backoff.after(failures, 0.999_999)).isBetween(Duration.ofSeconds(least), Duration.ofSeconds(most));
        assertThat(backoff.after(failures, 0.5)).isBetween(Duration.ofSeconds(least), Duration.ofSeconds(most));
    }

    @Test
    void theJitterSpreadsReceiversThatFailedTogether() {
        assertThat(backoff.after(3, 0.1)).isNotEqualTo(backoff.after(3, 0.9));
    }

    @Test
    void aManyTimesFailedDeliveryNeverOverflowsTheWait() {
        assertThat(backoff.after(Integer.MAX_VALUE, 0.5)).isLessThanOrEqualTo(Duration.ofHours(1));
    }

    @Test
    void aBaseAboveTheCapOrZeroIsRefused() {
        assertThatThrownBy(() -> new Backoff(Duration.ofMinutes(2), Duration.ofMinutes(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofMinutes(1))).isInstanceOf(IllegalArgumentException.class);
    }
}
