package io.gpupool.simulation;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How a replay input's cells are read: bounds inclusive, optional cells, and errors naming file, line and column. */
class CsvRowsTest {
    private static <T> List<T> values(String text, Function<CsvRows.Row, T> read) {
        List<T> out = new ArrayList<>();
        CsvRows.read("jobs.csv", text, List.of("id"), row -> out.add(read.apply(row)));
        return out;
    }

    @Test
    void aWholeNumberIsReadWithinItsBoundsBothIncluded() {
        assertThat(values("id,gpus\na,1\nb,8\n", r -> r.number("gpus", 1, 8))).containsExactly(1L, 8L);
        assertThatThrownBy(() -> values("id,gpus\na,0\n", r -> r.number("gpus", 1, 8)))
                .isInstanceOf(WorkloadInputException.class).hasMessage("jobs.csv:2: gpus: must be between 1 and 8, was 0");
        assertThatThrownBy(() -> values("id,gpus\na,9\n", r -> r.number("gpus", 1, 8)))
                .hasMessage("jobs.csv:2: gpus: must be between 1 and 8, was 9");
        assertThatThrownBy(() -> values("id,gpus\na,1.5\n", r -> r.number("gpus", 1, 8)))
                .hasMessage("jobs.csv:2: gpus: not a whole number: '1.5'");
    }

    @Test
    void aRequiredCellThatIsEmptyOrMissingIsRefusedButAnOptionalOneReadsAsNothing() {
        assertThatThrownBy(() -> values("id,gpus\na,  \n", r -> r.number("gpus", 1, 8)))
                .hasMessage("jobs.csv:2: gpus: required, but empty");
        assertThatThrownBy(() -> values("id\na\n", r -> r.text("tenant")))
                .hasMessage("jobs.csv:2: tenant: required, but empty");
        assertThat(values("id,gpus,note\na,,\nb,3, spaced \n", r -> r.optionalNumber("gpus", 1, 8) + "/" + r.optional("note")))
                .containsExactly("null/null", "3/spaced");
        assertThat(values("id\na\n", r -> r.optional("note"))).containsExactly((String) null);
    }

    @Test
    void anOptionalNumberIsStillHeldToItsBounds() {
        assertThatThrownBy(() -> values("id,gpus\na,12\n", r -> r.optionalNumber("gpus", 1, 8)))
                .hasMessage("jobs.csv:2: gpus: must be between 1 and 8, was 12");
    }

    @Test
    void aFractionIsReadFromZeroToOneAndAnEmptyCellIsNoFigure() {
        assertThat(values("id,util\na,0\nb,1\nc,0.25\nd,\n", r -> r.fraction("util"))).containsExactly(0.0, 1.0, 0.25, Double.NaN);
        assertThatThrownBy(() -> values("id,util\na,-0.01\n", r -> r.fraction("util")))
                .hasMessage("jobs.csv:2: util: must be between 0 and 1, was -0.01");
        assertThatThrownBy(() -> values("id,util\na,NaN\n", r -> r.fraction("util")))
                .hasMessage("jobs.csv:2: util: must be between 0 and 1, was NaN");
        assertThatThrownBy(() -> values("id,util\na,busy\n", r -> r.fraction("util")))
                .hasMessage("jobs.csv:2: util: not a number: 'busy'");
    }

    @Test
    void anInstantMustBeIso8601AndALongBadValueIsShownCut() {
        assertThat(values("id,at\na,2026-03-02T09:00:00Z\n", r -> r.instant("at")))
                .containsExactly(Instant.parse("2026-03-02T09:00:00Z"));
        String long41 = "x".repeat(41);
        assertThatThrownBy(() -> values("id,at\na," + long41 + "\n", r -> r.instant("at")))
                .hasMessage("jobs.csv:2: at: not an ISO-8601 instant such as 2026-03-02T09:00:00Z: '" + "x".repeat(40) + "…'");
        assertThat(CsvRows.excerpt("y".repeat(40))).isEqualTo("y".repeat(40));
    }

    @Test
    void errorsNameTheLineInTheFileCountingBlankLinesAndQuotedLineBreaks() {
        assertThatThrownBy(() -> values("id,gpus\n\na,1\n\"b\nc\",2\nd,x", r -> r.number("gpus", 1, 8)))
                .hasMessage("jobs.csv:6: gpus: not a whole number: 'x'");
    }

    @Test
    void aFileWithoutARequiredColumnIsRefusedAtItsHeaderNamingTheColumnsItHas() {
        assertThatThrownBy(() -> values("name,gpus\na,1\n", r -> r))
                .hasMessage("jobs.csv:1: id: the header has no such column (it has name,gpus)");
    }

    @Test
    void aFileWithAQuoteLeftOpenIsRefusedAsAWhole() {
        assertThatThrownBy(() -> values("id,gpus\na,1\n\"b,2\n", r -> r))
                .isInstanceOf(WorkloadInputException.class)
                .hasMessageStartingWith("jobs.csv: not a CSV file with a header line: ");
    }
}
