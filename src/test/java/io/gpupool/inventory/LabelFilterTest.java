package io.gpupool.inventory;

import io.gpupool.problem.ProblemException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code label=} and {@code catalog=} filters of the device and node listings. */
class LabelFilterTest {
    private static final Map<String, String> LABELS = Map.of("reserved", "true", "zone", "fra-1a", "empty", "");

    @Test
    void aKeyAloneMatchesEveryValueOfThatLabel() {
        LabelSelector s = LabelSelector.parse("zone");
        assertThat(s).isEqualTo(new LabelSelector("zone", null));
        assertThat(s.matches(LABELS)).isTrue();
        assertThat(s.matches(Map.of("region", "eu"))).isFalse();
    }

    @Test
    void aKeyAndValueMatchOnlyThatValue() {
        assertThat(LabelSelector.parse("zone=fra-1a").matches(LABELS)).isTrue();
        assertThat(LabelSelector.parse("zone=fra-1b").matches(LABELS)).isFalse();
        assertThat(LabelSelector.parse("region=fra-1a").matches(LABELS)).isFalse();
    }

    @Test
    void anEmptyValueMatchesOnlyALabelThatIsEmpty() {
        assertThat(LabelSelector.parse("empty=")).isEqualTo(new LabelSelector("empty", ""));
        assertThat(LabelSelector.parse("empty=").matches(LABELS)).isTrue();
        assertThat(LabelSelector.parse("zone=").matches(LABELS)).isFalse();
    }

    @Test
    void onlyTheFirstEqualsSignSeparatesKeyFromValue() {
        assertThat(LabelSelector.parse("a=b=c")).isEqualTo(new LabelSelector("a", "b=c"));
    }

    @Test
    void noFilterIsNoSelector() {
        assertThat(LabelSelector.parse(null)).isNull();
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"", " ", "=true"})
    void aFilterWithoutAKeyIsRefused(String text) {
        assertThatThrownBy(() -> LabelSelector.parse(text)).isInstanceOfSatisfying(ProblemException.class, e -> {
            assertThat(e.kind()).isEqualTo(ProblemException.Kind.INVALID);
            assertThat(e.getMessage()).isEqualTo("label filter must be 'key' or 'key=value', was '" + text + "'");
        });
    }

    @Test
    void theCatalogFilterIsKnownUnknownOrAbsent() {
        assertThat(DeviceFilter.parseCatalog("known")).isTrue();
        assertThat(DeviceFilter.parseCatalog("unknown")).isFalse();
        assertThat(DeviceFilter.parseCatalog(null)).isNull();
        assertThatThrownBy(() -> DeviceFilter.parseCatalog("Known")).isInstanceOf(ProblemException.class)
                .hasMessage("catalog filter must be 'known' or 'unknown', was 'Known'");
    }
}
