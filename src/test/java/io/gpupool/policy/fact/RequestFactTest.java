package io.gpupool.policy.fact;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** How rules read a pending request: its size, whether it is well formed, fractional, pinned. */
class RequestFactTest {
    private static RequestFact request(int gpus, int milli, String mig, int gang, List<String> models) {
        return new RequestFact("r", "acme", "training", gpus, milli, mig, models, 0, gang, null, false, 0);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "'one whole GPU', 1, 1000, 1, true",
            "'a thousandth of a GPU', 1, 1, 1, true",
            "'no GPU', 0, 1000, 0, false",
            "'no milli per GPU', 2, 0, 1, false",
            "'more than a whole card per GPU', 1, 1001, 1, false",
            "'a gang as large as the request', 4, 1000, 4, true",
            "'a gang larger than the request', 4, 1000, 5, false",
    })
    void aRequestIsWellFormedWithGpusAShareOfOneCardEachAndAGangNoLargerThanItself(String name, int gpus, int milli,
                                                                                  int gang, boolean wellFormed) {
        assertThat(request(gpus, milli, null, gang, List.of()).isWellFormed()).isEqualTo(wellFormed);
    }

    @Test
    void aRequestIsFractionalWhenItAsksLessThanACardOrAMigPartition() {
        assertThat(request(1, 1000, null, 1, List.of()).isFractional()).isFalse();
        assertThat(request(1, 999, null, 1, List.of()).isFractional()).isTrue();
        assertThat(request(1, 1000, "1g.10gb", 1, List.of()).isFractional()).isTrue();
    }

    @Test
    void aGangHasMoreThanOneMember() {
        assertThat(request(2, 1000, null, 1, List.of()).isGang()).isFalse();
        assertThat(request(2, 1000, null, 2, List.of()).isGang()).isTrue();
    }

    @Test
    void theTotalOfAHugeRequestDoesNotOverflow() {
        assertThat(request(3_000_000, 1000, null, 1, List.of()).totalMilli()).isEqualTo(3_000_000_000L);
    }

    @Test
    void aRequestIsPinnedOnlyWhenItAcceptsExactlyOneModel() {
        assertThat(request(1, 1000, null, 1, List.of("H100")).getPinnedModel()).isEqualTo("H100");
        assertThat(request(1, 1000, null, 1, List.of("H100", "A100")).getPinnedModel()).isNull();
        assertThat(request(1, 1000, null, 1, List.of()).getPinnedModel()).isNull();
    }

    @Test
    void aRequestWithoutModelsAcceptsEveryModelAndOneWithModelsOnlyThose() {
        assertThat(request(1, 1000, null, 1, null).allowsModel("L4")).isTrue();
        assertThat(request(1, 1000, null, 1, List.of("H100")).allowsModel("H100")).isTrue();
        assertThat(request(1, 1000, null, 1, List.of("H100")).allowsModel("L4")).isFalse();
    }

    @Test
    void theKindIsReadInCapitalsWhateverTheCallerWrote() {
        assertThat(request(1, 1000, null, 1, List.of()).kind()).isEqualTo("TRAINING");
    }
}
