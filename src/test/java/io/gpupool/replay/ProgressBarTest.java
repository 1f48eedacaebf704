package io.gpupool.replay;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** What a user sees on stderr while a replay runs. */
class ProgressBarTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private String shown() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void eachStepRedrawsTheBarInPlaceWithTheCountAndLabel() {
        ProgressBar bar = new ProgressBar(err, 3, true);

        bar.step("fgd seed 42");

        assertThat(shown()).isEqualTo("\r[" + "#".repeat(10) + " ".repeat(20) + "] 1/3 fgd seed 42          ");
    }

    @Test
    void theLastStepFillsTheBarAndEndsTheLine() {
        ProgressBar bar = new ProgressBar(err, 2, true);
        bar.step("a");
        bytes.reset();

        bar.step("b");

        assertThat(shown()).isEqualTo("\r[" + "#".repeat(30) + "] 2/2 b          " + System.lineSeparator());
    }

    @Test
    void aDisabledBarPrintsNothing() {
        ProgressBar bar = new ProgressBar(err, 1, false);

        bar.step("a");

        assertThat(shown()).isEmpty();
    }

    @Test
    void aBarOfNothingToDoIsShownFull() {
        ProgressBar bar = new ProgressBar(err, 0, true);

        bar.step("x");

        assertThat(shown()).startsWith("\r[" + "#".repeat(30) + "] 1/0 x");
    }
}
