package io.gpupool.webhook;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The signature receivers check, against a vector computed with another tool (Python's hmac). */
class SignatureTest {
    private static final String SECRET = "whsec_test";
    private static final byte[] BODY = "{\"event\":\"placed\"}".getBytes(StandardCharsets.UTF_8);
    private static final long AT = 1_767_225_600L; // 2026-01-01T00:00:00Z
    private static final Instant NOW = Instant.ofEpochSecond(AT);
    private static final Duration WINDOW = Duration.ofMinutes(5);

    @Test
    void theSignatureIsTheHexHmacSha256OfTimestampDotBody() {
        // python3 -c 'import hmac,hashlib;print(hmac.new(b"whsec_test",b"1767225600.{\"event\":\"placed\"}",hashlib.sha256).hexdigest())'
        assertThat(Signature.sign(SECRET, AT, BODY))
                .isEqualTo("sha256=" + PYTHON_HMAC);
    }

    static final String PYTHON_HMAC = "a73d8b144a851984f8ac05a9aa77c4b290b1626b3f001aac13a3c9e71a3ed381";

    @Test
    void aReceiverAcceptsAGenuineRecentDelivery() {
        String signature = Signature.sign(SECRET, AT, BODY);

        assertThat(Signature.verify(SECRET, Long.toString(AT), BODY, signature, NOW.plusSeconds(299), WINDOW)).isTrue();
    }

    @Test
    void aReceiverRefusesAChangedBodyAnotherSecretOrAnotherTimestamp() {
        String signature = Signature.sign(SECRET, AT, BODY);

        assertThat(Signature.verify(SECRET, Long.toString(AT), "{\"event\":\"expired\"}".getBytes(StandardCharsets.UTF_8),
                signature, NOW, WINDOW)).isFalse();
        assertThat(Signature.verify("whsec_other", Long.toString(AT), BODY, signature, NOW, WINDOW)).isFalse();
        assertThat(Signature.verify(SECRET, Long.toString(AT + 1), BODY, signature, NOW, WINDOW)).isFalse();
    }

    @Test
    void aReceiverRefusesADeliveryReplayedAfterTheWindowOrStampedInTheFuture() {
        String signature = Signature.sign(SECRET, AT, BODY);

        assertThat(Signature.verify(SECRET, Long.toString(AT), BODY, signature, NOW.plusSeconds(301), WINDOW)).isFalse();
        assertThat(Signature.verify(SECRET, Long.toString(AT), BODY, signature, NOW.minusSeconds(301), WINDOW)).isFalse();
    }

    @Test
    void missingOrMalformedHeadersAreRefused() {
        String signature = Signature.sign(SECRET, AT, BODY);

        assertThat(Signature.verify(SECRET, null, BODY, signature, NOW, WINDOW)).isFalse();
        assertThat(Signature.verify(SECRET, "yesterday", BODY, signature, NOW, WINDOW)).isFalse();
        assertThat(Signature.verify(SECRET, Long.toString(AT), BODY, null, NOW, WINDOW)).isFalse();
        assertThat(Signature.verify(SECRET, Long.toString(AT), BODY, signature.substring(7), NOW, WINDOW)).isFalse();
    }
}
