package io.gpupool.governance;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.policy.ruleset.RuleSet;

import java.util.Map;
import java.util.TreeMap;

/** Rule-set files are stored as one JSON object (path → text): one row per version, portable SQL. */
final class RuleSetCodec {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<TreeMap<String, String>> FILES = new TypeReference<>() { };

    private RuleSetCodec() {
    }

    static String encode(RuleSet ruleSet) {
        try {
            return JSON.writeValueAsString(ruleSet.files());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("file maps always serialise", e);
        }
    }

    static RuleSet decode(long version, String json) {
        try {
            Map<String, String> files = JSON.readValue(json, FILES);
            return new RuleSet(PolicyVersion.label(version), files);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("corrupt files of rule-set version " + version, e);
        }
    }
}
