package io.gpupool.store.row;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.List;

/** Rule names (of a decision, of a lease's notice) are stored as a JSON array in a TEXT column. */
public final class RuleNamesCodec {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<List<String>> NAMES = new TypeReference<>() { };

    /**
     * The names encoded last, and their text: a sweep logs tens of thousands of decisions under the
     * same one or two rule names (48,156 reclaim orders in a dry-run at scale), and Jackson spent a
     * few percent of that sweep writing the same array again. The key is an immutable copy, so a
     * caller changing its list afterwards cannot change what is remembered.
     */
    private record Encoded(List<String> names, String text) {
    }

    private static volatile Encoded last = new Encoded(List.of(), "[]");

    private RuleNamesCodec() {
    }

    public static String encode(List<String> names) {
        Encoded known = last;
        if (known.names().equals(names)) {
            return known.text();
        }
        try {
            String text = JSON.writeValueAsString(names);
            if (names != null && names.stream().noneMatch(java.util.Objects::isNull)) {
                last = new Encoded(List.copyOf(names), text);
            }
            return text;
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
