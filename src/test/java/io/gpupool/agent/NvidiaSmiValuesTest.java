package io.gpupool.agent;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The values nvidia-smi prints, as the agent's parsers read them: every way it says "no value" is
 * null (never zero), a number keeps its unit honest, a percentage becomes a fraction.
 */
class NvidiaSmiValuesTest {

    @ParameterizedTest(name = "''{0}'' is no value")
    @ValueSource(strings = {"N/A", "n/a", "[N/A]", "[Not Supported]", "Not Supported", "[Requested functionality has been deprecated]",
            "Unknown Error", "", "   ", " [N/A] "})
    void everyWayNvidiaSmiSaysNoValueIsReadAsNull(String raw) {
        assertThat(Readings.text(raw)).isNull();
        assertThat(Readings.number("f", raw, "W")).isNull();
        assertThat(Readings.whole("f", raw, "MiB")).isNull();
        assertThat(Readings.percent("f", raw)).isNull();
        assertThat(Readings.enabled("f", raw)).isNull();
    }

    @ParameterizedTest(name = "''{0}'' in {1} is {2}")
    @CsvSource(delimiter = '|', value = {
            "81559 MiB  | MiB | 81559.0",
            "81559      | MiB | 81559.0",
            "67.03 W    | W   | 67.03",
            "27 C       | C   | 27.0",
            "-3 C       | C   | -3.0",
            "+5 W       | W   | 5.0",
            "40 mib     | MiB | 40.0",
            " 12 MiB    | MiB | 12.0",
            "0          | ''  | 0.0",
    })
    void aNumberIsReadInItsExpectedUnitOrWithoutOne(String raw, String unit, double expected) {
        assertThat(Readings.number("gpu[0].x", raw, unit)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "''{0}'' rounds to {1}")
    @CsvSource({"19967.5 MiB, 19968", "19967.4 MiB, 19967", "0.5 MiB, 1"})
    void aWholeNumberIsTheNearestOne(String raw, long expected) {
        assertThat(Readings.whole("f", raw, "MiB")).isEqualTo(expected);
    }

    @ParameterizedTest(name = "''{0}'' expecting {1}: {2}")
    @CsvSource(delimiter = '|', value = {
            "15 GiB      | MiB | gpu[0].fb.total: expected MiB, was '15 GiB'",
            "12 W        | ''  | gpu[0].fb.total: expected no unit, was '12 W'",
            "lots        | MiB | gpu[0].fb.total: expected a number in MiB, was 'lots'",
            "lots        | ''  | gpu[0].fb.total: expected a number, was 'lots'",
            "1.2.3 W     | W   | gpu[0].fb.total: expected a number in W, was '1.2.3 W'",
    })
    void aValueThatIsNotANumberInTheExpectedUnitIsRefusedNamingTheField(String raw, String unit, String message) {
        assertThatThrownBy(() -> Readings.number("gpu[0].fb.total", raw, unit))
                .isInstanceOf(ReportFormatException.class).hasMessage(message);
    }

    @ParameterizedTest(name = "''{0}'' is {1}")
    @CsvSource({"0 %, 0.0", "37 %, 0.37", "100 %, 1.0", "100, 1.0", "0, 0.0", "12.5 %, 0.125"})
    void aPercentageIsAFractionOfOne(String raw, double expected) {
        assertThat(Readings.percent("u", raw)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "''{0}'' is refused")
    @ValueSource(strings = {"101 %", "100.01 %", "-1 %", "-0.5"})
    void aPercentageOutsideZeroToHundredIsRefused(String raw) {
        assertThatThrownBy(() -> Readings.percent("gpu[1].utilization.gpu_util", raw))
                .isInstanceOf(ReportFormatException.class)
                .hasMessage("gpu[1].utilization.gpu_util: a percentage is 0..100, was '" + raw + "'");
    }

    @ParameterizedTest(name = "''{0}'' is {1}")
    @CsvSource({"Enabled, true", "enabled, true", "Yes, true", "on, true", "TRUE, true",
            "Disabled, false", "No, false", "off, false", "false, false", "' Disabled ', false"})
    void migModeIsOnOrOffInEveryWordingTheDriversUse(String raw, boolean expected) {
        assertThat(Readings.enabled("mig", raw)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "''{0}'' is refused")
    @ValueSource(strings = {"Pending", "1", "enable"})
    void aMigModeThatIsNeitherOnNorOffIsRefused(String raw) {
        assertThatThrownBy(() -> Readings.enabled("gpu[0].mig_mode.current_mig", raw))
                .isInstanceOf(ReportFormatException.class)
                .hasMessage("gpu[0].mig_mode.current_mig: expected Enabled or Disabled, was '" + raw + "'");
    }

    @ParameterizedTest(name = "{0} + {1} = {2}")
    @CsvSource({"1, 2, 3", ", 2, 2", "1, , 1", ", , ", "0, 0, 0"})
    void countsAddUpAndAMissingOneCountsAsNothing(Long a, Long b, Long sum) {
        assertThat(Readings.sum(a, b)).isEqualTo(sum);
    }

    @ParameterizedTest(name = "{0} has {1} MiB")
    @CsvSource({"3g.40gb, 40960", "1g.5gb, 5120", "1g.10gb+me, 10240", "7G.80GB, 81920", "MIG 2g.20gb, 20480"})
    void aMigProfileNamesItsMemoryInGib(String profile, long mib) {
        assertThat(Readings.profileMemoryMib(profile)).isEqualTo(mib);
    }

    @ParameterizedTest(name = "''{0}'' names no memory")
    @ValueSource(strings = {"", "1c.3g.40", "shared"})
    void aProfileWithoutMemoryInItsNameHasNone(String profile) {
        assertThat(Readings.profileMemoryMib(profile)).isNull();
    }

    @ParameterizedTest(name = "a {0}-character value")
    @ValueSource(ints = {60, 61, 500})
    void aLongValueIsClippedInAMessageToSixtyCharacters(int length) {
        String raw = "x".repeat(length);
        String clipped = Readings.clip(raw);
        assertThat(clipped).isEqualTo(length <= 60 ? raw : "x".repeat(60) + "…");
    }
}
