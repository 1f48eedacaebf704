package io.gpupool.problem;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A body carrying a lone surrogate is refused while it is read, in a value or in a map key; a paired one passes. */
class WellFormedTextTest {
    private final ObjectMapper json = new ObjectMapper().registerModule(new WellFormedText());

    record Named(String name, Map<String, String> labels) {
    }

    @Test
    void aPairedSurrogateInAValueIsReadAsIs() throws Exception {
        Named read = json.readValue("{\"name\":\"rocket \\ud83d\\ude80\",\"labels\":{}}", Named.class);

        assertThat(read.name()).isEqualTo("rocket \uD83D\uDE80");
    }

    @Test
    void aLoneHighSurrogateInAValueIsRefusedNamingTheReason() {
        assertThatThrownBy(() -> json.readValue("{\"name\":\"bad \\ud800\",\"labels\":{}}", Named.class))
                .isInstanceOf(InvalidFormatException.class)
                .hasMessageContaining("not well-formed Unicode: a lone surrogate");
    }

    @Test
    void aLoneSurrogateInAMapKeyIsRefusedToo() {
        assertThatThrownBy(() -> json.readValue("{\"name\":\"ok\",\"labels\":{\"\\udc00\":\"x\"}}", Named.class))
                .isInstanceOf(InvalidFormatException.class)
                .hasMessageContaining("lone surrogate");
    }

    @Test
    void aLoneSurrogateInsideAListOfStringsIsRefused() {
        assertThatThrownBy(() -> json.readValue("[\"fine\",\"\\ud800x\"]", new TypeReference<List<String>>() { }))
                .isInstanceOf(InvalidFormatException.class);
    }

    @Test
    void withoutTheModuleTheSameBodyWouldBeAcceptedWhichIsWhyItIsRegistered() throws Exception {
        Named read = new ObjectMapper().readValue("{\"name\":\"bad \\ud800\",\"labels\":{}}", Named.class);

        assertThat(FieldChecks.wellFormed(read.name())).isFalse();
    }

    @Test
    void nullValuesStayNull() throws Exception {
        Named read = json.readValue("{\"name\":null,\"labels\":{\"k\":null}}", Named.class);

        assertThat(read.name()).isNull();
        assertThat(read.labels()).containsEntry("k", null);
    }
}
