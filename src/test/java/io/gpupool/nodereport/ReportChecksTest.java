package io.gpupool.nodereport;

import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Activity;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.Health;
import io.gpupool.agent.NodeReport.MigInstance;
import io.gpupool.problem.ProblemException;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What an agent's report must be before anything of it is applied: every problem is named with
 * its field path, and the report is refused whole. The GPUs below are what the dcgm-exporter and
 * nvidia-smi captures of the real fleet show (H100 80GB HBM3, MIG 3g.40gb).
 */
class ReportChecksTest {
    private static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");

    private static Gpu h100(int index, String uuid) {
        return new Gpu(index, uuid, "00000000:1" + index + ":00.0", "NVIDIA H100 80GB HBM3", "H100-SXM-80G", 81_559L,
                false, List.of(), List.of(), new Health(0L, 0L, 0L, 0L, 0L, List.of(), 41.0, 72.5),
                Activity.of(0.62, 0.55, 0.97, 20_480L));
    }

    private static NodeReport report(List<Gpu> gpus) {
        return new NodeReport("gpu-node-017", "dc1-train", "dc1", "r12", Map.of("fabric", "ib"), 42L,
                NOW.minusSeconds(3), 10, "dcgm", "550.54.15", "12.4", gpus);
    }

    private static NodeReport withNode(String node, Long sequence, Instant at, Integer interval) {
        return new NodeReport(node, "dc1-train", "dc1", "r12", Map.of(), sequence, at, interval, "dcgm", null, null,
                List.of(h100(0, "GPU-1")));
    }

    private static List<String> errors(NodeReport r) {
        return ReportChecks.errors(r, NOW);
    }

    @Test
    void aReportAsTheAgentSendsItPasses() {
        NodeReport r = report(List.of(h100(0, "GPU-6d1c0a8e"), h100(1, "GPU-7e2d1b9f")));

        assertThat(errors(r)).isEmpty();
        ReportChecks.check(r, NOW);
    }

    @Test
    void aNodeWithoutGpusIsAValidReport() {
        assertThat(errors(report(List.of()))).isEmpty();
    }

    @Test
    void theNodeIdSequenceAndTimeAreRequired() {
        assertThat(errors(withNode(null, null, null, null))).containsExactly(
                "node: 'null' is not a valid id (letters, digits, '.', '_', '-'; at most 128; starts with a letter or digit)",
                "sequence: a positive number is required, was null",
                "at: the time the report was taken is required");
    }

    @Test
    void aSequenceMustBePositive() {
        assertThat(errors(withNode("n1", 0L, NOW, 10))).containsExactly("sequence: a positive number is required, was 0");
        assertThat(errors(withNode("n1", -7L, NOW, 10))).containsExactly("sequence: a positive number is required, was -7");
    }

    @Test
    void aReportFromUpToFiveMinutesAheadIsClockSkewButOneFurtherAheadIsRefused() {
        assertThat(errors(withNode("n1", 1L, NOW.plus(ReportChecks.MAX_SKEW), 10))).isEmpty();

        Instant ahead = NOW.plus(ReportChecks.MAX_SKEW).plusSeconds(1);
        assertThat(errors(withNode("n1", 1L, ahead, 10)))
                .containsExactly("at: " + ahead + " is in the future (server time " + NOW + ")");
    }

    @Test
    void anOldReportIsNotRefusedHereItsSequenceDecidesWhetherItIsNew() {
        assertThat(errors(withNode("n1", 1L, NOW.minusSeconds(86_400), 10))).isEmpty();
    }

    @Test
    void theReportIntervalIsBetweenOneSecondAndAnHour() {
        assertThat(errors(withNode("n1", 1L, NOW, 1))).isEmpty();
        assertThat(errors(withNode("n1", 1L, NOW, 3600))).isEmpty();
        assertThat(errors(withNode("n1", 1L, NOW, null))).isEmpty();
        assertThat(errors(withNode("n1", 1L, NOW, 0))).containsExactly("intervalSeconds: must be between 1 and 3600, was 0");
        assertThat(errors(withNode("n1", 1L, NOW, 3601))).containsExactly("intervalSeconds: must be between 1 and 3600, was 3601");
    }

    @Test
    void clusterAndSiteAreIdsAndRackSourceAndLabelsHaveTheirColumnsWidths() {
        NodeReport r = new NodeReport("n1", "dc 1", "-site", "r".repeat(129), Map.of("k".repeat(129), "v".repeat(257)),
                1L, NOW, 10, "s".repeat(65), null, null, List.of());

        List<String> errors = errors(r);

        assertThat(errors).hasSize(6);
        assertThat(errors.get(0)).startsWith("cluster: 'dc 1' is not a valid id");
        assertThat(errors.get(1)).startsWith("site: '-site' is not a valid id");
        assertThat(errors.get(2)).isEqualTo("rack: at most 128 characters, got 129");
        assertThat(errors.get(3)).isEqualTo("source: at most 64 characters, got 65");
        assertThat(errors.get(4)).startsWith("labels." + "k".repeat(64) + "…(129 characters): at most 128 characters, got 129");
        assertThat(errors.get(5)).endsWith(": at most 256 characters, got 257");
    }

    @Test
    void moreThanSixteenGpusOnOneNodeIsRefused() {
        List<Gpu> gpus = new ArrayList<>();
        for (int i = 0; i < 17; i++) {
            gpus.add(h100(i % 16, "GPU-" + i));
        }

        assertThat(errors(report(gpus))).contains("gpus: at most 16 per node, got 17");
    }

    @Test
    void aGpuReportedTwiceByUuidOrIndexIsRefusedAtTheSecond() {
        List<String> errors = errors(report(List.of(h100(0, "GPU-a"), h100(1, "GPU-a"), h100(1, "GPU-b"))));

        assertThat(errors).containsExactly("gpus[1].uuid: 'GPU-a' is reported twice", "gpus[2].index: 1 is reported twice");
    }

    @Test
    void aGpuNeedsAUuidAndAnIndexWithinTheNode() {
        Gpu noUuid = new Gpu(0, " ", null, null, null, null, null, null, null, null, null);
        Gpu noIndex = new Gpu(null, "GPU-x", null, null, null, null, null, null, null, null, null);
        Gpu farIndex = new Gpu(16, "GPU-y", null, null, null, null, null, null, null, null, null);

        assertThat(errors(report(Arrays.asList(noUuid, noIndex, farIndex, null)))).containsExactly(
                "gpus[0].uuid: is required",
                "gpus[1].index: is required",
                "gpus[2].index: must be between 0 and 15, was 16",
                "gpus[3]: is null");
    }

    @Test
    void aGpusMemoryMustBePositiveWhenGiven() {
        Gpu g = new Gpu(0, "GPU-x", null, null, null, -5L, null, null, null, null, null);

        assertThat(errors(report(List.of(g)))).containsExactly("gpus[0].memoryMib: must be > 0, was -5");
    }

    @Test
    void activityReadingsAreFractionsAndNotANumberIsNotOne() {
        Activity a = new Activity(Activity.GR_ENGINE_ACTIVE, 1.2, Double.NaN, -0.1, 0.5, -1L);
        Gpu g = new Gpu(0, "GPU-x", null, null, null, null, null, null, null, null, a);

        assertThat(errors(report(List.of(g)))).containsExactly(
                "gpus[0].activity.value: a fraction 0..1, was 1.2",
                "gpus[0].activity.graphicsActive: a fraction 0..1, was NaN",
                "gpus[0].activity.smActive: a fraction 0..1, was -0.1",
                "gpus[0].activity.framebufferUsedMib: must be >= 0, was -1");
    }

    @Test
    void aValueMustSayWhichMetricItIs() {
        Activity unnamed = new Activity("DUTY", 0.4, null, null, 0.4, null);
        Gpu g = new Gpu(0, "GPU-x", null, null, null, null, null, null, null, null, unnamed);

        assertThat(errors(report(List.of(g))))
                .containsExactly("gpus[0].activity.metric: one of GR_ENGINE_ACTIVE, SM_ACTIVE, GPU_UTIL for a value, was 'DUTY'");
    }

    @Test
    void framebufferAloneWithoutAnActivityMetricIsFine() {
        Gpu g = new Gpu(0, "GPU-x", null, null, null, null, null, null, null, null, Activity.of(null, null, null, 512L));

        assertThat(errors(report(List.of(g)))).isEmpty();
    }

    @Test
    void aStatedHealthMustBeOneTheServiceKnows() {
        Gpu sick = new Gpu(0, "GPU-x", null, null, null, null, null, null, null, Health.stated("ON_FIRE"), null);
        Gpu drained = new Gpu(1, "GPU-y", null, null, null, null, null, null, null, Health.stated("DRAINING"), null);

        List<String> errors = errors(report(List.of(sick, drained)));

        assertThat(errors).singleElement().asString().startsWith("gpus[0].health.state: one of [").endsWith("], was 'ON_FIRE'")
                .contains("DRAINING");
    }

    @Test
    void migInstancesAreAtMostSevenWithAProfileNameOrTheirMemory() {
        List<MigInstance> eight = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
            eight.add(new MigInstance(k, "1g.10gb", 9_856L, null, null));
        }
        Gpu tooMany = new Gpu(0, "GPU-a", null, null, null, null, true, eight, null, null, null);
        Gpu bad = new Gpu(1, "GPU-b", null, null, null, null, true, Arrays.asList(
                new MigInstance(1, "3g.40gb; rm -rf", null, null, null),
                new MigInstance(2, null, null, null, null),
                new MigInstance(3, null, 0L, null, null),
                null,
                new MigInstance(5, "3g.40gb", 40_192L, null, new Activity(Activity.SM_ACTIVE, 2.0, null, 2.0, null, null))),
                null, null, null);

        assertThat(errors(report(List.of(tooMany, bad)))).containsExactly(
                "gpus[0].migInstances: at most 7, got 8",
                "gpus[1].migInstances[0].profile: '3g.40gb; rm -rf' is not a MIG profile name",
                "gpus[1].migInstances[1]: needs a profile or memoryMib",
                "gpus[1].migInstances[2].memoryMib: must be > 0, was 0",
                "gpus[1].migInstances[3]: is null",
                "gpus[1].migInstances[4].activity.value: a fraction 0..1, was 2.0",
                "gpus[1].migInstances[4].activity.smActive: a fraction 0..1, was 2.0");
    }

    @Test
    void aLabelWithoutAValueIsRefusedNamingTheLabel() {
        java.util.Map<String, String> labels = new java.util.HashMap<>();
        labels.put("fabric", null);
        NodeReport r = new NodeReport("n1", null, null, null, labels, 1L, NOW, 10, null, null, null, List.of());

        assertThat(errors(r)).containsExactly("labels.fabric: a value is required (\"\" for a label without one)");
    }

    @Test
    void aBodyWithNullEntriesIsRefusedWithTheirPathsNotWithAnExceptionName() {
        NodeReport r = ReportJson.parse("{\"node\":\"n1\",\"sequence\":1,\"at\":\"2026-12-02T09:59:00Z\","
                + "\"gpus\":[{\"index\":0,\"uuid\":\"GPU-a\",\"migInstances\":[null],\"nvlinkPeers\":[\"GPU-b\",null]},null]}");

        assertThat(errors(r)).containsExactly(
                "gpus[0].nvlinkPeers[1]: is null",
                "gpus[0].migInstances[0]: is null",
                "gpus[1]: is null");
    }

    @Test
    void aRefusedReportIsRefusedWholeAsInvalidWithEveryProblemListed() {
        NodeReport r = new NodeReport("n1", null, null, null, null, 0L, null, 0, null, null, null, List.of());

        assertThatThrownBy(() -> ReportChecks.check(r, NOW)).isInstanceOfSatisfying(ProblemException.class, e -> {
            assertThat(e.kind()).isEqualTo(ProblemException.Kind.INVALID);
            assertThat(e.getMessage()).startsWith("The report was not applied: 3 error(s); first: sequence:");
            assertThat(e.errors()).hasSize(3);
        });
    }

    @Test
    void aNewNodeOfAnUnknownClusterIsUnprocessableAndSaysWhereTheClusterIsSet() {
        ProblemException none = ReportChecks.unknownCluster(null);
        ProblemException unknown = ReportChecks.unknownCluster("dc9");

        assertThat(none.kind()).isEqualTo(ProblemException.Kind.UNPROCESSABLE);
        assertThat(none.errors()).singleElement().asString().contains("agent.cluster in the agent's config file");
        assertThat(unknown.errors()).containsExactly("cluster: unknown cluster 'dc9'");
    }

    @Test
    void theActivityOfASourceIsChosenGraphicsEngineFirstThenSmThenUtilisation() {
        assertThat(Activity.of(0.3, 0.2, 0.9, null).metric()).isEqualTo(Activity.GR_ENGINE_ACTIVE);
        assertThat(Activity.of(0.3, 0.2, 0.9, null).value()).isEqualTo(0.3);
        assertThat(Activity.of(null, 0.2, 0.9, null).metric()).isEqualTo(Activity.SM_ACTIVE);
        assertThat(Activity.of(null, null, 0.9, null).value()).isEqualTo(0.9);
        assertThat(Activity.of(null, null, null, 100L).metric()).isNull();
        assertThat(Activity.of(null, null, null, null)).as("nothing measured is no sample, not an idle one").isNull();
    }
}
