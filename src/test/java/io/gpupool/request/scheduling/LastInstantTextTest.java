package io.gpupool.request.scheduling;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Decision messages name a deadline as string concatenation wrote it before the text was
 * remembered: every instant in a run of repeats, changes and nulls reads as {@code String.valueOf}
 * gives it, so the replay's and the dry-run's logged messages stay byte for byte the same.
 */
class LastInstantTextTest {

    @Test
    void everyInstantReadsAsConcatenationWroteItWhateverCameBefore() {
        Instant t = Instant.parse("2026-03-02T00:00:30Z");
        List<Instant> asked = Arrays.asList(t, t, t.plusSeconds(30), null, t.plusSeconds(30), t,
                Instant.parse("2026-03-02T00:00:30.500Z"), null, null, Instant.EPOCH);
        LastInstantText texts = new LastInstantText();

        List<String> written = new ArrayList<>();
        List<String> concatenated = new ArrayList<>();
        for (Instant instant : asked) {
            written.add("taken at " + texts.of(instant));
            concatenated.add("taken at " + instant);
        }

        assertThat(written).containsExactlyElementsOf(concatenated);
    }
}
