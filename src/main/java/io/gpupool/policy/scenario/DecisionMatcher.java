package io.gpupool.policy.scenario;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.policy.decision.Decision;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Matches a scenario expectation — a decision type plus any of its fields — against decisions. A
 * field compares by its text, lists element by element; {@code rule} and {@code reason} are short
 * for ruleName and reasonCode. Failure messages show the near misses (same type and subject) so an
 * author sees what the policy decided instead.
 */
final class DecisionMatcher {
    private static final List<String> SUBJECT_FIELDS = List.of("requestId", "leaseId", "deviceId");
    private static final Map<String, String> ALIASES = Map.of("rule", "ruleName", "reason", "reasonCode");
    private final ObjectMapper mapper;

    DecisionMatcher(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /** Null when some decision matches, else why not. */
    String expectPresent(Map<String, Object> expected, List<Decision> decisions) {
        List<Map<String, Object>> ofType = fieldsOfType(expected, decisions);
        if (ofType.stream().anyMatch(actual -> matches(expected, actual))) {
            return null;
        }
        return "expected " + describe(expected) + " but no decision matched; " + nearMisses(expected, ofType);
    }

    /** Null when no decision matches, else the offending decision. */
    String expectAbsent(Map<String, Object> forbidden, List<Decision> decisions) {
        Optional<Map<String, Object>> hit = fieldsOfType(forbidden, decisions).stream()
                .filter(actual -> matches(forbidden, actual)).findFirst();
        return hit.map(h -> "expected no " + describe(forbidden) + " but got " + h).orElse(null);
    }

    private List<Map<String, Object>> fieldsOfType(Map<String, Object> expected, List<Decision> decisions) {
        Object type = expected.get("type");
        if (type == null) {
            throw new IllegalArgumentException("expectation without type: " + expected);
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (Decision d : decisions) {
            if (d.type().equals(type.toString())) {
                @SuppressWarnings("unchecked")
                Map<String, Object> fields = mapper.convertValue(d, LinkedHashMap.class);
                out.add(fields);
            }
        }
        return out;
    }

    private static boolean matches(Map<String, Object> expected, Map<String, Object> actual) {
        for (Map.Entry<String, Object> e : expected.entrySet()) {
            if (e.getKey().equals("type")) {
                continue;
            }
            String field = ALIASES.getOrDefault(e.getKey(), e.getKey());
            if (!actual.containsKey(field)) {
                throw new IllegalArgumentException(expected.get("type") + " has no field '" + e.getKey()
                        + "'; fields are " + actual.keySet());
            }
            if (!sameText(e.getValue(), actual.get(field))) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameText(Object expected, Object actual) {
        if (expected instanceof List<?> want && actual instanceof List<?> got) {
            return want.stream().map(String::valueOf).toList().equals(got.stream().map(String::valueOf).toList());
        }
        return String.valueOf(expected).equals(String.valueOf(actual));
    }

    private static String nearMisses(Map<String, Object> expected, List<Map<String, Object>> ofType) {
        String type = String.valueOf(expected.get("type"));
        if (ofType.isEmpty()) {
            return "the policy made no " + type + " at all";
        }
        List<Map<String, Object>> sameSubject = ofType;
        for (String subject : SUBJECT_FIELDS) {
            if (expected.containsKey(subject)) {
                Object want = expected.get(subject);
                sameSubject = ofType.stream().filter(a -> sameText(want, a.get(subject))).toList();
                break;
            }
        }
        if (sameSubject.isEmpty()) {
            return "no " + type + " for that subject (" + ofType.size() + " for others)";
        }
        return "instead got " + sameSubject.stream().limit(5).map(DecisionMatcher::brief).toList();
    }

    private static String brief(Map<String, Object> fields) {
        Map<String, Object> copy = new LinkedHashMap<>(fields);
        copy.remove("policyVersion");
        copy.remove("message");
        copy.remove("type");
        return copy.toString();
    }

    private static String describe(Map<String, Object> expected) {
        Map<String, Object> copy = new LinkedHashMap<>(expected);
        Object type = copy.remove("type");
        return type + copy.toString();
    }
}
