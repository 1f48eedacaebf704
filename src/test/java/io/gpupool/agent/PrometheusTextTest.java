package io.gpupool.agent;

import io.gpupool.agent.PrometheusText.Sample;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Prometheus text format as a dcgm-exporter scrape writes it: what is read, and what is refused with its line. */
class PrometheusTextTest {

    private static Sample one(String line) {
        List<Sample> samples = PrometheusText.parse(line);
        assertThat(samples).hasSize(1);
        return samples.get(0);
    }

    @Test
    void commentsAndBlankLinesAreSkippedAndEachSampleKeepsItsLineNumber() {
        List<Sample> samples = PrometheusText.parse("# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).\n"
                + "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n\n"
                + "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 40\n   \n"
                + "  DCGM_FI_DEV_GPU_TEMP{gpu=\"1\"} 41  \n");
        assertThat(samples).extracting(Sample::line).containsExactly(4, 6);
        assertThat(samples).extracting(Sample::value).containsExactly(40.0, 41.0);
        assertThat(samples).extracting(s -> s.label("gpu")).containsExactly("0", "1");
    }

    @Test
    void aSampleWithoutLabelsHasAnEmptyLabelSet() {
        Sample s = one("process_open_fds 12");
        assertThat(s.name()).isEqualTo("process_open_fds");
        assertThat(s.labels()).isEmpty();
        assertThat(s.value()).isEqualTo(12.0);
    }

    @Test
    void labelsMayBeSpacedAndEndWithATrailingComma() {
        Sample s = one("m{ a =\"1\" ,\tb=\"two words\", } 7 1700000000000");
        assertThat(s.labels()).isEqualTo(Map.of("a", "1", "b", "two words"));
        assertThat(s.value()).isEqualTo(7.0);
    }

    @Test
    void anEmptyLabelSetIsAllowed() {
        assertThat(one("m{} 1").labels()).isEmpty();
    }

    @Test
    void namesMayHoldColonsDigitsAndUnderscoresAfterTheFirstCharacter() {
        Sample s = one("job:dcgm_fi_2:rate5m{_gpu9=\"0\"} 1");
        assertThat(s.name()).isEqualTo("job:dcgm_fi_2:rate5m");
        assertThat(s.labels()).containsEntry("_gpu9", "0");
    }

    @Test
    void everyLetterDigitColonAndUnderscoreAtTheEdgesOfTheirRangesBelongsToAName() {
        Sample s = one("azAZ:_09{Zz_Aa09=\"v\"} 1");
        assertThat(s.name()).isEqualTo("azAZ:_09");
        assertThat(s.labels()).containsOnlyKeys("Zz_Aa09");
    }

    @ParameterizedTest(name = "a name starting with ''{0}''")
    @ValueSource(strings = {"0", "9", "-", "`", "{", "@", "[", "/"})
    void aNameStartsWithALetterColonOrUnderscore(String first) {
        assertThatThrownBy(() -> PrometheusText.parse(first + "x 1")).isInstanceOf(ReportFormatException.class)
                .hasMessage("dcgm-exporter scrape line 1: expected a metric name");
    }

    @Test
    void aNewlineEscapeInALabelValueIsANewline() {
        assertThat(one("m{a=\"x\\ny\"} 1").label("a")).isEqualTo("x\ny");
    }

    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({"NaN, NaN", "+Inf, Infinity", "Inf, Infinity", "-Inf, -Infinity", "1.5e3, 1500.0", "-0.25, -0.25"})
    void specialValuesAndExponentsAreRead(String raw, double expected) {
        assertThat(Double.valueOf(one("m " + raw).value())).isEqualTo(Double.valueOf(expected)); // NaN equals NaN as a Double
    }

    @ParameterizedTest(name = "line 2 ''{0}'': {1}")
    @CsvSource(delimiter = '|', value = {
            "9m 1                     | dcgm-exporter scrape line 2: expected a metric name",
            "{a=\"1\"} 1              | dcgm-exporter scrape line 2: expected a metric name",
            "m{=\"1\"} 1              | dcgm-exporter scrape line 2: expected a label name in m",
            "m{1a=\"1\"} 1            | dcgm-exporter scrape line 2: expected a label name in m",
            "m{a=1} 1                 | dcgm-exporter scrape line 2: label a of m: expected =\"…\"",
            "m{a} 1                   | dcgm-exporter scrape line 2: label a of m: expected =\"…\"",
            "m{a=                     | dcgm-exporter scrape line 2: label a of m: expected =\"…\"",
            "m{a=\"1 1                | dcgm-exporter scrape line 2: label a of m: unterminated value",
            "m{a=\"x\\                | dcgm-exporter scrape line 2: label a of m: unterminated value",
            "m{a=\"1\",a=\"2\"} 1     | dcgm-exporter scrape line 2: label a of m is given twice",
            "m                        | dcgm-exporter scrape line 2: m: expected a value (and an optional timestamp)",
            "m{a=\"1\"}               | dcgm-exporter scrape line 2: m: expected a value (and an optional timestamp)",
            "m 1 2 3                  | dcgm-exporter scrape line 2: m: expected a value (and an optional timestamp)",
            "m forty                  | dcgm-exporter scrape line 2: m: 'forty' is not a number",
    })
    void aLineThatIsNotTheTextFormatIsRefusedNamingItsLine(String line, String message) {
        assertThatThrownBy(() -> PrometheusText.parse("ok 1\n" + line + "\n"))
                .isInstanceOf(ReportFormatException.class).hasMessage(message);
    }

    @ParameterizedTest
    @ValueSource(strings = {"\r\n", "\n"})
    void windowsLineEndingsAreReadLikeUnixOnes(String eol) {
        assertThat(PrometheusText.parse("a 1" + eol + "b{x=\"y\"} 2" + eol)).extracting(Sample::name).containsExactly("a", "b");
    }
}
