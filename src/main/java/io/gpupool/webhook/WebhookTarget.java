package io.gpupool.webhook;

import io.gpupool.problem.FieldChecks;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;

/**
 * Where a webhook may point. Only http and https, an absolute URL with a host, no user info; and,
 * because the service sends from inside the network (server-side request forgery), never to a
 * link-local address (cloud metadata services live there), the unspecified or a multicast
 * address, and to loopback only when the operator allows it ({@code gpupool.webhooks.allow-loopback}).
 * Checked at registration on a literal address, and again on every address the host resolves to
 * before each attempt. Redirects are never followed. docs/operations.md, "Webhooks".
 */
final class WebhookTarget {
    static final int MAX_URL = 2048;

    private WebhookTarget() {
    }

    /** Records what is wrong with {@code url} in {@code checks}; returns the URI when it is fine. */
    static URI check(FieldChecks checks, String url, boolean allowLoopback) {
        if (!checks.text("url", url) || !checks.maxLength("url", url, MAX_URL)) {
            return null;
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            checks.error("url: '" + FieldChecks.excerpt(url) + "' is not a URL (" + e.getReason() + ")");
            return null;
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            checks.error("url: only http and https are sent to, got '" + FieldChecks.excerpt(url) + "'");
            return null;
        }
        if (uri.getHost() == null || uri.getHost().isBlank()) {
            checks.error("url: needs a host, got '" + FieldChecks.excerpt(url) + "'");
            return null;
        }
        if (uri.getRawUserInfo() != null) {
            checks.error("url: must not carry user info (a secret in a URL leaks into logs); the signature authenticates us");
            return null;
        }
        if (uri.getRawFragment() != null) {
            checks.error("url: must not have a fragment");
            return null;
        }
        String host = uri.getHost();
        if (isLiteral(host)) {
            try {
                String refused = refused(InetAddress.getByName(host.replace("[", "").replace("]", "")), allowLoopback);
                if (refused != null) {
                    checks.error("url: " + refused);
                    return null;
                }
            } catch (UnknownHostException e) {
                checks.error("url: '" + FieldChecks.excerpt(host) + "' is not an address");
                return null;
            }
        }
        return uri;
    }

    /** Why the service will not send to any of {@code host}'s addresses, or null when it may. */
    static String refusedHost(String host, boolean allowLoopback) throws UnknownHostException {
        for (InetAddress address : List.of(InetAddress.getAllByName(host))) {
            String refused = refused(address, allowLoopback);
            if (refused != null) {
                return refused;
            }
        }
        return null;
    }

    /** Why {@code address} is refused, or null. */
    static String refused(InetAddress address, boolean allowLoopback) {
        if (address.isLinkLocalAddress()) {
            return "link-local address " + address.getHostAddress() + " refused (cloud metadata lives there)";
        }
        if (address.isAnyLocalAddress() || address.isMulticastAddress()) {
            return "address " + address.getHostAddress() + " is not a receiver";
        }
        if (address.isLoopbackAddress() && !allowLoopback) {
            return "loopback address " + address.getHostAddress() + " refused (gpupool.webhooks.allow-loopback is off)";
        }
        if (address instanceof Inet6Address v6 && v6.getHostAddress().toLowerCase(Locale.ROOT).startsWith("fd00:ec2")) {
            return "address " + address.getHostAddress() + " refused (cloud metadata)";
        }
        return null;
    }

    private static boolean isLiteral(String host) {
        return host.startsWith("[") || host.chars().allMatch(c -> Character.isDigit(c) || c == '.');
    }
}
