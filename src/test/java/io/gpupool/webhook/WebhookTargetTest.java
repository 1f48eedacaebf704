package io.gpupool.webhook;

import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where a webhook may point (server-side request forgery: the service sends from inside the network). */
class WebhookTargetTest {

    private static void check(String url, boolean allowLoopback) {
        FieldChecks checks = new FieldChecks();
        WebhookTarget.check(checks, url, allowLoopback);
        checks.throwIfAny("Webhook not registered");
    }

    @ParameterizedTest(name = "{0} is a receiver")
    @ValueSource(strings = {"https://hooks.example.com/gpupool", "http://10.1.2.3:8080/hook", "https://192.168.0.10/x?y=1",
            "http://[2001:db8::1]:9000/", "https://hooks.example.com:8443/a/b"})
    void httpAndHttpsUrlsWithAHostAreAccepted(String url) {
        check(url, false);
    }

    @ParameterizedTest(name = "{0} is refused: {1}")
    @CsvSource(delimiter = '|', value = {
            "gopher://hooks.example.com/|only http and https",
            "javascript:alert(1)|only http and https",
            "https://user@hooks.example.com/|user info",
            "https://hooks.example.com/#frag|fragment",
            "http://169.254.169.254/latest/meta-data/|link-local",
            "http://[fe80::1]/|link-local",
            "http://0.0.0.0/|not a receiver",
            "http://224.0.0.1/|not a receiver",
            "http://127.0.0.1:8080/api/v1/tokens|loopback",
            "http://[::1]/|loopback"})
    void urlsThatCouldTurnTheServiceAgainstItsOwnNetworkAreRefused(String url, String because) {
        assertThatThrownBy(() -> check(url, false)).isInstanceOf(ProblemException.class).hasMessageContaining(because);
    }

    @ParameterizedTest(name = "{0} is allowed when the operator allows loopback")
    @ValueSource(strings = {"http://127.0.0.1:9000/hook", "http://[::1]:9000/"})
    void loopbackIsAllowedOnlyWhenConfigured(String url) {
        check(url, true);
    }

    @ParameterizedTest(name = "{0} resolves to a refused address")
    @ValueSource(strings = {"localhost", "127.0.0.1"})
    void aHostNameIsCheckedOnTheAddressesItResolvesTo(String host) throws Exception {
        assertThat(WebhookTarget.refusedHost(host, false)).contains("loopback");
        assertThat(WebhookTarget.refusedHost(host, true)).isNull();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"169.254.169.254", "fe80::1"})
    void linkLocalIsRefusedEvenWhenLoopbackIsAllowed(String address) throws Exception {
        assertThat(WebhookTarget.refused(InetAddress.getByName(address), true)).contains("link-local");
    }
}
