package io.gpupool.simulation;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A replay's prices file is refused naming the file, the line its price change starts on and the field. */
class PriceFileTest {
    private static final String GOOD = "{\"model\": \"H100\", \"perGpuHour\": 2.5, \"effectiveFrom\": \"2026-01-01T00:00:00Z\"}";

    @Test
    void aListOfPriceChangesAsTheApiAnswersIsRead() {
        assertThatCode(() -> PriceFile.parse("prices.json", "[" + GOOD + ",\n {\"model\": \"A100\", \"tier\": \"training\","
                + " \"perGpuHour\": \"1.75\", \"currency\": \"usd\", \"effectiveFrom\": \"2026-01-01T00:00:00Z\", \"id\": 7}]"))
                .doesNotThrowAnyException();
        assertThatCode(() -> PriceFile.parse("prices.json", "[]")).doesNotThrowAnyException();
    }

    @Test
    void somethingOtherThanAJsonArrayIsRefused() {
        assertThatThrownBy(() -> PriceFile.parse("prices.json", GOOD))
                .isInstanceOf(WorkloadInputException.class)
                .hasMessage("prices.json:1: is not a JSON array of price changes (as GET /api/v1/prices answers)");
    }

    @Test
    void anElementThatIsNotAnObjectIsRefusedWithItsLine() {
        assertThatThrownBy(() -> PriceFile.parse("prices.json", "[\n" + GOOD + ",\n 3\n]"))
                .hasMessage("prices.json:3: a price change must be a JSON object");
    }

    @Test
    void aPriceThatIsNotANumberIsRefusedNamingItsField() {
        assertThatThrownBy(() -> PriceFile.parse("prices.json", "[\n" + GOOD + ",\n{\"model\": \"H100\", \"perGpuHour\": 1,\n"
                + " \"borrowedPerGpuHour\": \"cheap\", \"effectiveFrom\": \"2026-01-01T00:00:00Z\"}]"))
                .hasMessage("prices.json:3: borrowedPerGpuHour: 'cheap' is not a number");
    }

    @Test
    void aChangeThePriceBookWouldRefuseIsRefusedWithTheBooksReasonAndTheLineItStartsOn() {
        assertThatThrownBy(() -> PriceFile.parse("prices.json", "[\n" + GOOD + ",\n"
                + "{\"model\": \"H100\", \"perGpuHour\": 1, \"effectiveFrom\": \"2026-01-01T00:30:00Z\"}]"))
                .isInstanceOf(WorkloadInputException.class)
                .hasMessage("prices.json:3: effectiveFrom: 2026-01-01T00:30:00Z is not a whole hour (a priced hour has one rate)");
    }

    @Test
    void invalidJsonIsRefusedWithTheLineWhereItBreaks() {
        assertThatThrownBy(() -> PriceFile.parse("prices.json", "[\n" + GOOD + ",\n{\"model\": }]"))
                .isInstanceOf(WorkloadInputException.class)
                .hasMessageStartingWith("prices.json:3: is not valid JSON: ");
    }
}
