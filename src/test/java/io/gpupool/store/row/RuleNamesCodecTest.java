package io.gpupool.store.row;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RuleNamesCodecTest {
    @Test
    void theSameNamesAskedAgainGiveTheSameTextAsAFreshEncoding() {
        List<String> names = List.of("Stale heartbeat is reclaimable", "Idle lease \"x\"");
        String first = RuleNamesCodec.encode(names);
        assertThat(RuleNamesCodec.encode(new ArrayList<>(names))).isEqualTo(first);
        assertThat(RuleNamesCodec.decode(first)).isEqualTo(names);
    }

    @Test
    void aListChangedAfterItWasEncodedIsEncodedAsItIsNow() {
        List<String> names = new ArrayList<>(List.of("A rule"));
        assertThat(RuleNamesCodec.encode(names)).isEqualTo("[\"A rule\"]");
        names.add("Another rule");
        assertThat(RuleNamesCodec.encode(names)).isEqualTo("[\"A rule\",\"Another rule\"]");
        names.remove(1);
        assertThat(RuleNamesCodec.encode(names)).isEqualTo("[\"A rule\"]");
    }

    @Test
    void noNamesANullListAndANullNameAreEncodedAsBefore() {
        assertThat(RuleNamesCodec.encode(List.of())).isEqualTo("[]");
        assertThat(RuleNamesCodec.encode(null)).isEqualTo("null");
        assertThat(RuleNamesCodec.encode(Arrays.asList("A rule", null))).isEqualTo("[\"A rule\",null]");
        assertThat(RuleNamesCodec.encode(Arrays.asList("A rule", null))).isEqualTo("[\"A rule\",null]");
    }
}
