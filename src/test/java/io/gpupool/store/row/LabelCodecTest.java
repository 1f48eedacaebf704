package io.gpupool.store.row;

import io.gpupool.store.ContentHash;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Labels as stored in a TEXT column, and the hash an import is recognised by: equal label sets are
 * equal text whatever their order (a re-import writes nothing), and a corrupt column is reported,
 * not read as no labels.
 */
class LabelCodecTest {
    @Test
    void equalLabelSetsAreEncodedAsEqualTextWhateverTheirOrder() {
        Map<String, String> one = new LinkedHashMap<>();
        one.put("zone", "eu-west-1a");
        one.put("gpu.nvidia.com/class", "H100-SXM-80G");
        Map<String, String> other = new LinkedHashMap<>();
        other.put("gpu.nvidia.com/class", "H100-SXM-80G");
        other.put("zone", "eu-west-1a");

        assertThat(LabelCodec.encode(one)).isEqualTo(LabelCodec.encode(other))
                .isEqualTo("{\"gpu.nvidia.com/class\":\"H100-SXM-80G\",\"zone\":\"eu-west-1a\"}");
    }

    @Test
    void labelsReadBackAsWritten() {
        Map<String, String> labels = Map.of("rack", "r12", "topology.kubernetes.io/zone", "b", "quoted", "say \"hi\"");

        assertThat(LabelCodec.decode(LabelCodec.encode(labels))).isEqualTo(labels);
        assertThat(LabelCodec.decode(LabelCodec.encode(Map.of()))).isEmpty();
    }

    @Test
    void anEmptyOrMissingColumnIsNoLabels() {
        assertThat(LabelCodec.decode(null)).isEmpty();
        assertThat(LabelCodec.decode("")).isEmpty();
        assertThat(LabelCodec.decode("   ")).isEmpty();
    }

    @Test
    void aCorruptColumnIsReportedWithItsText() {
        assertThatThrownBy(() -> LabelCodec.decode("{\"zone\":")).isInstanceOf(IllegalStateException.class)
                .hasMessage("corrupt labels column: {\"zone\":");
    }

    @Test
    void anImportIsKnownByTheSha256OfItsText() {
        assertThat(ContentHash.of("")).isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assertThat(ContentHash.of("abc")).isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assertThat(ContentHash.of("nodes: [dgx-01]")).isNotEqualTo(ContentHash.of("nodes: [dgx-02]")).hasSize(64);
    }
}
