package io.gpupool.fleet;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.fleet.FleetDocument.ClusterSpec;
import io.gpupool.fleet.FleetDocument.GpuGroupSpec;
import io.gpupool.fleet.FleetDocument.NodeSpec;
import io.gpupool.fleet.FleetDocument.SiteSpec;
import io.gpupool.pool.PoolSpec;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A fleet document read strictly, checked as a whole, and the defaults a node's GPUs get. */
class FleetDocumentCheckingTest {
    private static final List<SiteSpec> SITE = List.of(new SiteSpec("s1", null, null));
    private static final List<ClusterSpec> CLUSTER = List.of(new ClusterSpec("c1", "s1", null, null));
    private static final List<PoolSpec> POOL = List.of(new PoolSpec("p1", null, PoolTier.TRAINING, null, null, null));

    private static GpuGroupSpec gpus(int count, Integer numaNodes, Map<Integer, DeviceHealth> health) {
        return new GpuGroupSpec(count, "H100-SXM-80G", 81920L, null, null, null, null, null, null, health, numaNodes);
    }

    private static ResolvedFleet resolve(GpuGroupSpec g) {
        return new FleetResolver(PoolSnapshot.empty()).resolve(new FleetDocument(SITE, CLUSTER, POOL,
                List.of(new NodeSpec("n1", "c1", null, null, null, null, g)), null, null));
    }

    private static List<String> errors(GpuGroupSpec g) {
        try {
            resolve(g);
        } catch (ProblemException e) {
            return e.errors();
        }
        throw new AssertionError("the document was accepted");
    }

    // --- reading

    @Test
    void aYamlDocumentIsReadAndEnumsInAnyCase() {
        FleetDocument doc = FleetParser.parse("""
                sites: [{id: s1}]
                nodes:
                  - id: n1
                    cluster: c1
                    gpus: {count: 2, model: T4, memoryMib: 15360, shareMode: time_slice}
                """, true);
        assertThat(doc.nodes().get(0).gpus().shareMode()).isEqualTo(ShareMode.TIME_SLICE);
        assertThat(doc.sites()).extracting(SiteSpec::id).containsExactly("s1");
        assertThat(doc.quotas()).isEmpty();
    }

    @Test
    void anUnknownFieldIsRefusedWithItsPathAndTheKnownFields() {
        assertThatThrownBy(() -> FleetParser.parse("{\"nodes\": [{\"id\": \"n1\", \"gpu\": {}}]}", false))
                .isInstanceOf(ProblemException.class)
                .hasMessageStartingWith("Unknown field 'gpu' at nodes[0].gpu (line 1, column ")
                .hasMessageContaining("; known fields: [").hasMessageContaining("gpus");
    }

    @Test
    void anInvalidEnumValueIsRefusedListingTheValues() {
        assertThatThrownBy(() -> FleetParser.parse("nodes:\n  - id: n1\n    gpus: {shareMode: halves}\n", true))
                .isInstanceOf(ProblemException.class)
                .hasMessageStartingWith("Invalid value 'halves' at nodes[0].gpus.shareMode (line 3, column ")
                .hasMessageContaining("; expected one of [");
    }

    @Test
    void aNumberThatIsNotANumberIsRefusedWithoutAnEnumList() {
        assertThatThrownBy(() -> FleetParser.parse("{\"nodes\": [{\"id\": \"n1\", \"cpuMilli\": \"lots\"}]}", false))
                .isInstanceOf(ProblemException.class)
                .hasMessageStartingWith("Invalid value 'lots' at nodes[0].cpuMilli (line 1, column ")
                .hasMessageNotContaining("expected one of");
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"", "   ", "null", "~"})
    void anEmptyDocumentIsRefused(String text) {
        assertThatThrownBy(() -> FleetParser.parse(text, true)).isInstanceOf(ProblemException.class)
                .hasMessage("The fleet document is empty");
    }

    @Test
    void malformedTextIsRefusedWithItsLine() {
        assertThatThrownBy(() -> FleetParser.parse("{\"nodes\": [\n{\"id\": }", false)).isInstanceOf(ProblemException.class)
                .hasMessageStartingWith("Malformed fleet document at nodes[0] (line 2, column 8): ");
    }

    @ParameterizedTest(name = "''{0}'' looks like YAML: {1}")
    @CsvSource({"'{\"nodes\": []}', false", "'  [1]', false", "'nodes: []', true", "'', true", "'# a comment', true"})
    void jsonIsToldFromYamlByItsFirstCharacter(String text, boolean yaml) {
        assertThat(FleetParser.looksLikeYaml(text)).isEqualTo(yaml);
    }

    @Test
    void noTextAtAllLooksLikeYaml() {
        assertThat(FleetParser.looksLikeYaml(null)).isTrue();
    }

    // --- defaults and checks of a node's GPUs

    @ParameterizedTest(name = "{0} GPUs: NUMA nodes {1}")
    @CsvSource(delimiter = '|', value = {"1 | 0", "3 | 0,0,0", "4 | 0,0,1,1", "6 | 0,0,0,1,1,1"})
    void fourGpusOrMoreAreSplitOverTwoNumaNodesByDefaultAndFewerStayOnOne(int count, String expected) {
        assertThat(resolve(gpus(count, null, null)).devices()).extracting(d -> String.valueOf(d.numaNode()))
                .containsExactly(expected.split(","));
    }

    @Test
    void statedNumaNodesSplitTheGpusEvenly() {
        assertThat(resolve(gpus(6, 3, null)).devices()).extracting(Device::numaNode).containsExactly(0, 0, 1, 1, 2, 2);
    }

    @ParameterizedTest(name = "numaNodes {0}")
    @ValueSource(ints = {0, 5})
    void moreNumaNodesThanGpusOrNoneIsRefused(int numa) {
        assertThat(errors(gpus(4, numa, null))).singleElement().asString().startsWith("nodes[0].gpus.numaNodes: must be between 1 and 4");
    }

    @Test
    void aHealthOverrideForAGpuTheNodeDoesNotHaveIsRefused() {
        assertThat(errors(gpus(2, null, Map.of(2, DeviceHealth.UNHEALTHY)))).singleElement().asString()
                .startsWith("nodes[0].gpus.health key: must be between 0 and 1");
        assertThat(resolve(gpus(2, null, Map.of(1, DeviceHealth.OFFLINE))).devices()).extracting(Device::health)
                .containsExactly(DeviceHealth.HEALTHY, DeviceHealth.OFFLINE);
    }

    @Test
    void gpusWithoutNvlinkRdmaShareModeOrPoolAreExclusiveStandaloneCardsOutsideAnyPool() {
        Device d = resolve(gpus(1, null, null)).devices().get(0);
        assertThat(d.nvlinkDomain()).isNull();
        assertThat(d.shareMode()).isEqualTo(ShareMode.EXCLUSIVE);
        assertThat(d.poolId()).isNull();
        assertThat(d.uuid()).isEqualTo(FleetResolver.deterministicUuid("n1-gpu0")).startsWith("GPU-");
        assertThat(FleetResolver.deterministicUuid("n1-gpu0")).isNotEqualTo(FleetResolver.deterministicUuid("n1-gpu1"));
    }

    @Test
    void aNodeWithoutGpusHasNoDevicesAndTheCountOrMemoryOfAGroupMustBePositive() {
        assertThat(resolve(null).devices()).isEmpty();
        assertThat(resolve(gpus(0, null, null)).devices()).isEmpty();
        assertThat(errors(new GpuGroupSpec(2, "H100-SXM-80G", 0L, null, null, null, null, null, null, null, null)))
                .singleElement().asString().startsWith("nodes[0].gpus.memoryMib: must be > 0");
        assertThat(errors(new GpuGroupSpec(2, " ", 1L, null, null, null, null, null, null, null, null)))
                .singleElement().asString().startsWith("nodes[0].gpus.model");
    }

    @Test
    void anUnnamedSiteOrClusterIsNamedByItsId() {
        ResolvedFleet fleet = resolve(null);
        assertThat(fleet.sites().get(0).name()).isEqualTo("s1");
        assertThat(fleet.clusters().get(0).name()).isEqualTo("c1");
        assertThat(fleet.nodes().get(0).cpuMilli()).isZero();
        assertThat(fleet.nodes().get(0).memoryMib()).isZero();
        assertThat(fleet.nodes().get(0).siteId()).isEqualTo("s1");
    }
}
