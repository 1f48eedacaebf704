package io.gpupool.store.row;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.Map;
import java.util.TreeMap;

/** Labels are stored as a JSON object in a TEXT column: portable across H2 and PostgreSQL. */
final class LabelCodec {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<Map<String, String>> TYPE = new TypeReference<>() { };

    private LabelCodec() {
    }

    static String encode(Map<String, String> labels) {
        try {
            // Sorted so equal label sets always produce equal text (idempotent re-imports write nothing).
            return JSON.writeValueAsString(new TreeMap<>(labels));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("labels are plain strings and always serialise", e);
        }
    }

    static Map<String, String> decode(String text) {
        try {
            return text == null || text.isBlank() ? Map.of() : JSON.readValue(text, TYPE);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("corrupt labels column: " + text, e);
        }
    }
}
