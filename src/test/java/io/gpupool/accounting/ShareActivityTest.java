package io.gpupool.accounting;

import io.gpupool.telemetry.SampleRollup;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ShareActivityTest {
    static final Instant SLOT = Instant.parse("2027-01-04T01:00:00Z");
    static final Instant NEXT = SLOT.plusSeconds(300);

    static SampleRollup row(String profile, Integer instance, Instant slot, String metric, Double avg, Double max,
                            Integer fb, int n) {
        return new SampleRollup("gpu0", profile, instance, slot, metric, avg, max, fb, fb, n);
    }

    @Test
    void aSlotIsReadWithTheBestMetricItHasEngineActivityOverSmOverGpuUtil() {
        List<ShareActivity.Slot> slots = ShareActivity.of(List.of(
                row(null, null, SLOT, "GPU_UTIL", 0.9, 0.9, null, 10),
                row(null, null, SLOT, "GR_ENGINE_ACTIVE", 0.3, 0.4, null, 10),
                row(null, null, SLOT, "SM_ACTIVE", 0.2, 0.2, null, 10),
                row(null, null, NEXT, "GPU_UTIL", 0.7, 0.7, null, 10)), null);

        assertThat(slots).hasSize(2);
        assertThat(slots.get(0).metric()).isEqualTo("GR_ENGINE_ACTIVE");
        assertThat(slots.get(0).activity()).isEqualTo(0.3);
        assertThat(slots.get(0).max()).isEqualTo(0.4);
        assertThat(slots.get(1).metric()).isEqualTo("GPU_UTIL");
    }

    @Test
    void aMigShareReadsTheMeanOfItsProfilesInstancesAndTheirMaximumForIdlenessNeverOtherProfilesOrTheCard() {
        List<ShareActivity.Slot> slots = ShareActivity.of(List.of(
                row(null, null, SLOT, "GR_ENGINE_ACTIVE", 0.95, 0.95, 60000, 10),
                row("3g.40gb", 1, SLOT, "SM_ACTIVE", 0.02, 0.03, 1000, 10),
                row("3g.40gb", 2, SLOT, "SM_ACTIVE", 0.5, 0.6, 3000, 10),
                row("2g.20gb", 3, SLOT, "SM_ACTIVE", 0.9, 0.9, 9000, 10)), "3g.40gb");

        assertThat(slots).hasSize(1);
        assertThat(slots.get(0).activity()).isCloseTo(0.26, within(1e-9));
        assertThat(slots.get(0).max()).isEqualTo(0.6);
        assertThat(slots.get(0).framebufferMib()).isEqualTo(2000.0);
    }

    @Test
    void aWholeCardShareReadsOnlyTheCardsOwnSeries() {
        List<ShareActivity.Slot> slots = ShareActivity.of(List.of(
                row("3g.40gb", 1, SLOT, "SM_ACTIVE", 0.9, 0.9, null, 10),
                row(null, null, SLOT, "GR_ENGINE_ACTIVE", 0.1, 0.1, null, 10)), null);

        assertThat(slots).singleElement().satisfies(s -> assertThat(s.activity()).isEqualTo(0.1));
    }

    @Test
    void twoRowsOfOneSlotAreWeightedByTheirSampleCounts() {
        List<ShareActivity.Slot> slots = ShareActivity.of(List.of(
                row(null, null, SLOT, "GPU_UTIL", 0.2, 0.2, null, 3),
                row(null, null, SLOT, "GPU_UTIL", 0.6, 0.9, null, 1)), null);

        assertThat(slots.get(0).activity()).isCloseTo(0.3, within(1e-9));
        assertThat(slots.get(0).max()).isEqualTo(0.9);
    }

    @Test
    void aSlotWithFramebufferButNoActivityIsNotMeasured() {
        List<ShareActivity.Slot> slots = ShareActivity.of(List.of(row(null, null, SLOT, null, null, null, 4096, 5)), null);

        assertThat(slots.get(0).measured()).isFalse();
        assertThat(slots.get(0).framebufferMib()).isEqualTo(4096.0);
    }

    @Test
    void aMigProfileNamesItsFramebuffer() {
        assertThat(ShareActivity.profileMemoryMib("3g.40gb")).isEqualTo(40960L);
        assertThat(ShareActivity.profileMemoryMib("1g.10gb+me")).isEqualTo(10240L);
        assertThat(ShareActivity.profileMemoryMib("odd")).isNull();
    }
}
