package io.gpupool.fleet;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;
import io.gpupool.problem.WellFormedText;

/**
 * Reads a fleet document from JSON or YAML text. Strict on purpose: an unknown field is more likely a
 * typo that would silently drop data than a field to ignore.
 */
final class FleetParser {
    private static final ObjectMapper JSON = configure(JsonMapper.builder());
    private static final ObjectMapper YAML = configure(JsonMapper.builder(new YAMLFactory()));

    private FleetParser() {
    }

    static FleetDocument parse(String text, boolean yaml) {
        if (text == null || text.isBlank()) {
            throw ProblemException.invalid("The fleet document is empty");
        }
        try {
            FleetDocument doc = (yaml ? YAML : JSON).readValue(text, FleetDocument.class);
            if (doc == null) {
                throw ProblemException.invalid("The fleet document is empty");
            }
            return doc;
        } catch (UnrecognizedPropertyException e) {
            throw ProblemException.invalid("Unknown field '" + FieldChecks.excerpt(e.getPropertyName()) + "' at " + location(e)
                    + "; known fields: " + e.getKnownPropertyIds());
        } catch (InvalidFormatException e) {
            throw ProblemException.invalid("Invalid value '" + FieldChecks.excerpt(e.getValue()) + "' at " + location(e)
                    + (e.getTargetType().isEnum() ? "; expected one of " + java.util.Arrays.toString(e.getTargetType().getEnumConstants()) : ""));
        } catch (JsonProcessingException e) {
            throw ProblemException.invalid("Malformed fleet document at " + location(e) + ": " + e.getOriginalMessage());
        }
    }

    static boolean looksLikeYaml(String text) {
        String trimmed = text == null ? "" : text.stripLeading();
        return !(trimmed.startsWith("{") || trimmed.startsWith("["));
    }

    private static String location(JsonProcessingException e) {
        String where = e.getLocation() == null ? "?" : "line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
        if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
            StringBuilder path = new StringBuilder();
            for (JsonMappingException.Reference ref : m.getPath()) {
                path.append(ref.getFieldName() != null ? (path.isEmpty() ? "" : ".") + ref.getFieldName() : "[" + ref.getIndex() + "]");
            }
            where = path + " (" + where + ")";
        }
        return where;
    }

    private static ObjectMapper configure(JsonMapper.Builder builder) {
        return builder.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
                .disable(DeserializationFeature.UNWRAP_SINGLE_VALUE_ARRAYS)
                .disable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
                .addModule(new WellFormedText())
                .build();
    }
}
