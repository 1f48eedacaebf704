package io.gpupool.agent;

import io.gpupool.agent.NodeReport.Capture;
import io.gpupool.catalog.CardCatalog;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * A capture damaged on its way to the agent (a tool killed mid-write, a disk full, a stray edit) is
 * either read or refused with a {@link ReportFormatException} naming where: never another
 * exception, which the agent would report as a crash instead of a bad capture. Each real capture
 * is cut after every line, has every line dropped in turn, and has its values replaced by noise.
 */
class DamagedCapturesTest {
    private static final CardCatalog CATALOG = CardCatalog.standard();
    private static final String H100 = "nvidia-smi-query-csv/nvidia_gpu_exporter__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt";
    private static final String H100_MIG = "nvidia-smi-query-csv/nvidia_gpu_exporter__linux-x86_64__nvidia-h100-mig__590.48.01.txt";
    private static final String[] NOISE = {"", "N/A", "-1", "NaN", "1e999", "0x1F", "Ω", "\"", "<", "&amp;", "99999999999999999999999", " , "};

    /** Whoever reads one kind of capture. */
    private record Reader(String name, BiFunction<String, CardCatalog, Capture> parse) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static final Reader XML = new Reader("nvidia-smi -q -x", NvidiaSmiXml::parse);
    private static final Reader CSV = new Reader("nvidia-smi --query-gpu csv", NvidiaSmiCsv::parse);
    private static final Reader DCGM = new Reader("dcgm-exporter scrape", DcgmScrape::parse);

    static Stream<Arguments> captures() {
        return Stream.of(
                arguments(XML, "telegraf__a100-sxm4-v12.xml", Captures.read("nvidia-smi-xml/telegraf__a100-sxm4-v12.xml")),
                arguments(XML, "telegraf__tesla-t4.xml", Captures.read("nvidia-smi-xml/telegraf__tesla-t4.xml")),
                arguments(XML, "telegraf__dual_a5000-v13.xml", Captures.read("nvidia-smi-xml/telegraf__dual_a5000-v13.xml")),
                arguments(XML, "telegraf__quadro-p2000-v12.xml", Captures.read("nvidia-smi-xml/telegraf__quadro-p2000-v12.xml")),
                arguments(XML, "telegraf__gtx-1660-ti.xml", Captures.read("nvidia-smi-xml/telegraf__gtx-1660-ti.xml")),
                arguments(CSV, "h100 under load", Captures.section(H100, "load :: query-gpu (csv")),
                arguments(CSV, "h100 in MIG mode with its listing",
                        Captures.section(H100_MIG, "load :: query-gpu (csv") + "\n" + Captures.section(H100_MIG, "capabilities :: list (-L)")),
                arguments(DCGM, "a100 MIG scrape", Captures.read("dcgm-exporter-metrics/cloud-native-docs__dcgm-exporter-rst__a100-mig-scrape.prom")));
    }

    /** Reads {@code text}; a refusal is fine, as long as it is the agent's own and says something. */
    private static void readOrRefused(Reader reader, String text, String damage) {
        try {
            Capture capture = reader.parse().apply(text, CATALOG);
            assertThat(capture.gpus()).as(damage).allSatisfy(g -> assertThat(g).isNotNull());
        } catch (ReportFormatException refused) {
            assertThat(refused.getMessage()).as(damage).isNotBlank();
        } catch (RuntimeException other) {
            throw new AssertionError(reader + " failed with " + other + " instead of a ReportFormatException after " + damage, other);
        }
    }

    @ParameterizedTest(name = "{0}: {1} cut after any line is read or refused as a bad capture")
    @MethodSource("captures")
    void aCaptureCutAfterAnyLineIsReadOrRefusedAsABadCapture(Reader reader, String name, String text) {
        String[] lines = text.split("\n", -1);
        for (int cut = 0; cut <= lines.length; cut++) {
            readOrRefused(reader, String.join("\n", List.of(lines).subList(0, cut)), "cutting after line " + cut);
        }
    }

    @ParameterizedTest(name = "{0}: {1} cut in the middle of a line is read or refused as a bad capture")
    @MethodSource("captures")
    void aCaptureCutInTheMiddleOfALineIsReadOrRefusedAsABadCapture(Reader reader, String name, String text) {
        for (int cut = 1; cut < text.length(); cut += Math.max(1, text.length() / 150)) {
            readOrRefused(reader, text.substring(0, cut), "cutting at character " + cut);
        }
    }

    @ParameterizedTest(name = "{0}: {1} missing any one line is read or refused as a bad capture")
    @MethodSource("captures")
    void aCaptureMissingAnyOneLineIsReadOrRefusedAsABadCapture(Reader reader, String name, String text) {
        List<String> lines = List.of(text.split("\n", -1));
        for (int drop = 0; drop < lines.size(); drop++) {
            List<String> kept = new ArrayList<>(lines);
            kept.remove(drop);
            readOrRefused(reader, String.join("\n", kept), "dropping line " + (drop + 1) + ": " + lines.get(drop).strip());
        }
    }

    @ParameterizedTest(name = "{0}: {1} with values replaced by noise is read or refused as a bad capture")
    @MethodSource("captures")
    void aCaptureWithValuesReplacedByNoiseIsReadOrRefusedAsABadCapture(Reader reader, String name, String text) {
        Random random = new Random(name.hashCode());
        for (int round = 0; round < 120; round++) {
            String damaged = replaceOneValue(reader, text, NOISE[random.nextInt(NOISE.length)], random);
            readOrRefused(reader, damaged, "noise round " + round);
        }
    }

    /** One value replaced: an element's text in XML, a field in CSV, a sample value or label in a scrape. */
    private static String replaceOneValue(Reader reader, String text, String noise, Random random) {
        List<int[]> spans = new ArrayList<>();
        if (reader == XML) {
            var m = java.util.regex.Pattern.compile(">([^<>]+)</").matcher(text);
            while (m.find()) {
                spans.add(new int[] {m.start(1), m.end(1)});
            }
        } else if (reader == CSV) {
            var m = java.util.regex.Pattern.compile("(?<=^|, )([^,\\n]+)", java.util.regex.Pattern.MULTILINE).matcher(text);
            while (m.find()) {
                spans.add(new int[] {m.start(1), m.end(1)});
            }
        } else {
            var m = java.util.regex.Pattern.compile("(?<=\")([^\"\\n]*)(?=\")|(?<= )(\\S+)$", java.util.regex.Pattern.MULTILINE).matcher(text);
            while (m.find()) {
                spans.add(new int[] {m.start(), m.end()});
            }
        }
        int[] span = spans.get(random.nextInt(spans.size()));
        return text.substring(0, span[0]) + noise + text.substring(span[1]);
    }
}
