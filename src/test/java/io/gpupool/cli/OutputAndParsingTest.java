package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Tables, durations and the line diff, without a server. */
class OutputAndParsingTest {
    @ParameterizedTest(name = "{0} is {1} ms")
    @CsvSource({"500ms, 500", "90s, 90000", "15m, 900000", "2h, 7200000", "1d, 86400000", "45, 45000"})
    void durationsAreWrittenAsPeopleTypeThem(String text, long millis) {
        assertThat(Connection.Durations.parse(text)).isEqualTo(Duration.ofMillis(millis));
    }

    @Test
    void aDurationWithoutAUnitWeKnowIsAUsageError() {
        assertThatThrownBy(() -> Connection.Durations.parse("2 weeks"))
                .isInstanceOfSatisfying(CliFailure.class, e -> assertThat(e.exitCode()).isEqualTo(2));
    }

    @Test
    void aTablePadsColumnsShortensLongCellsButPrintsTheLastColumnWhole() throws Exception {
        JsonNode rows = new ObjectMapper().readTree("[{\"id\":\"a\",\"note\":\"" + "x".repeat(100) + "\",\"why\":\""
                + "y".repeat(100) + "\"},{\"id\":\"bbb\",\"note\":null}]");
        StringWriter out = new StringWriter();

        Table.of().column("ID", "/id").column("NOTE", "/note").column("WHY", "/why").print(rows, new PrintWriter(out));

        String[] lines = out.toString().split("\n");
        assertThat(lines[0]).startsWith("ID   NOTE");
        assertThat(lines[1]).contains("x".repeat(79) + "…").endsWith("y".repeat(100));
        assertThat(lines[2]).isEqualTo("bbb  -" + " ".repeat(79) + "  -");
    }

    @Test
    void theLineDiffKeepsCommonLinesOutAndMarksRemovedAndAddedOnes() {
        StringBuilder out = new StringBuilder();

        LineDiff.append(out, List.of("a", "b", "c"), List.of("a", "B", "c", "d"));

        assertThat(out.toString()).isEqualTo("-b\n+B\n+d\n");
    }
}
