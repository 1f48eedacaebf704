package io.gpupool.policy.ruleset;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * SHA-256 over every file of a rule set (rules and tests), in path order, each framed by its path
 * and length so moving text between files changes the hash. Independent of upload order and of
 * the version label: the same content always hashes the same, which is what the history chain
 * and "is this already active?" need.
 */
public final class RuleSetHash {
    private RuleSetHash() {
    }

    public static String sha256(RuleSet ruleSet) {
        MessageDigest digest = sha256();
        for (Map.Entry<String, String> file : ruleSet.files().entrySet()) {
            byte[] path = file.getKey().getBytes(StandardCharsets.UTF_8);
            byte[] text = file.getValue().getBytes(StandardCharsets.UTF_8);
            digest.update((path.length + ":").getBytes(StandardCharsets.UTF_8));
            digest.update(path);
            digest.update((":" + text.length + ":").getBytes(StandardCharsets.UTF_8));
            digest.update(text);
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every JVM has SHA-256", e);
        }
    }
}
