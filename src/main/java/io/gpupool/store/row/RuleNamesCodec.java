package io.gpupool.store.row;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.List;

/** Rule names (of a decision, of a lease's notice) are stored as a JSON array in a TEXT column. */
public final class RuleNamesCodec {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<List<String>> NAMES = new TypeReference<>() { };

    private RuleNamesCodec() {
    }

    public static String encode(List<String> names) {
        try {
            return JSON.writeValueAsString(names);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("rule names always serialise", e);
        }
    }

    /** The names in {@code text}; none when it is null. */
    public static List<String> decode(String text) {
        try {
            return text == null ? List.of() : JSON.readValue(text, NAMES);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("corrupt rule names column: " + text, e);
        }
    }
}
