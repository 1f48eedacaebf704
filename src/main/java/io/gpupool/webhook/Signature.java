package io.gpupool.webhook;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;

/**
 * The signature of a delivery: {@code sha256=} and the hex HMAC-SHA256, keyed with the webhook's
 * secret, of {@code <timestamp>.<body>}, where the timestamp is the {@code X-Gpupool-Timestamp}
 * header (Unix seconds). Signing the timestamp with the body lets a receiver refuse a captured
 * delivery replayed later: it checks the signature, then that the timestamp is recent.
 */
public final class Signature {
    public static final String PREFIX = "sha256=";

    private Signature() {
    }

    public static String sign(String secret, long timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update((timestamp + ".").getBytes(StandardCharsets.UTF_8));
            return PREFIX + HexFormat.of().formatHex(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }

    /**
     * What a receiver does: the signature matches (compared in constant time) and the timestamp is
     * within {@code window} of {@code now}, either side.
     */
    public static boolean verify(String secret, String timestampHeader, byte[] body, String signatureHeader,
                                 Instant now, Duration window) {
        if (timestampHeader == null || signatureHeader == null) {
            return false;
        }
        long timestamp;
        try {
            timestamp = Long.parseLong(timestampHeader.trim());
        } catch (NumberFormatException e) {
            return false;
        }
        if (Math.abs(now.getEpochSecond() - timestamp) > window.toSeconds()) {
            return false;
        }
        byte[] expected = sign(secret, timestamp, body).getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(expected, signatureHeader.trim().getBytes(StandardCharsets.UTF_8));
    }
}
