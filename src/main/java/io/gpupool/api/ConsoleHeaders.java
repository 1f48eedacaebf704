package io.gpupool.api;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;

/**
 * Security headers on every console answer. The Content-Security-Policy admits scripts, styles and
 * connections from this origin only and no inline script, style attribute, eval, frame or plugin: an
 * injected {@code <script>} or {@code onclick} in any value the API returns cannot run, which is what
 * keeps the bearer token in sessionStorage out of reach (docs/console.md, "Security").
 */
@ServerFilter({"/console", "/console/**"})
public class ConsoleHeaders {
    static final String CONTENT_SECURITY_POLICY = String.join("; ",
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            "connect-src 'self'",
            "font-src 'self'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'");

    @ResponseFilter
    public void secure(HttpRequest<?> request, MutableHttpResponse<?> response) {
        response.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        response.header("X-Content-Type-Options", "nosniff");
        response.header("Referrer-Policy", "no-referrer");
        response.header("X-Frame-Options", "DENY");
        response.header("Cache-Control", "no-cache");
    }
}
