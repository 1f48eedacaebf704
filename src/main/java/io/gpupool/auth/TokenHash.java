package io.gpupool.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Token secrets are 256 random bits, so a plain SHA-256 is enough to store them safely: there is no
 * low-entropy password to brute-force, and lookups stay one indexed equality.
 */
final class TokenHash {
    private static final SecureRandom RANDOM = new SecureRandom();

    private TokenHash() {
    }

    static String newSecret() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return "gpt_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    static String of(String secret) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(digest.digest(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
