package io.gpupool.auth;

import io.gpupool.problem.Problem;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;

import java.util.List;
import java.util.Optional;

/**
 * Guards {@code /metrics}: a scraper whose peer address is in the {@link ScrapeAllowlist} passes
 * without a token; anybody else needs an admin or viewer token (401 without a valid one, 403 for a
 * tenant token: fleet-wide figures name every tenant). See docs/operations.md, "Metrics".
 */
@ServerFilter({"/metrics", "/metrics/**"})
public class MetricsAccessFilter {
    private static final String BEARER = "Bearer ";

    private final TokenService tokens;
    private final ScrapeAllowlist allowlist;

    MetricsAccessFilter(TokenService tokens, ScrapeAllowlist allowlist) {
        this.tokens = tokens;
        this.allowlist = allowlist;
    }

    @RequestFilter
    @Nullable
    public HttpResponse<?> authorise(HttpRequest<?> request) {
        String header = request.getHeaders().get(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.startsWith(BEARER)) {
            if (allowlist.admits(request.getRemoteAddress().getAddress())) {
                return null;
            }
            return problem(HttpStatus.UNAUTHORIZED, "Missing bearer token: send 'Authorization: Bearer <token>' "
                    + "with an admin or viewer token, or scrape from an address in gpupool.metrics.allow-from", request)
                    .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
        }
        Authentication checked = tokens.check(header.substring(BEARER.length()).trim());
        Optional<Caller> caller = Optional.ofNullable(checked.caller());
        if (caller.isEmpty()) {
            return problem(HttpStatus.UNAUTHORIZED, checked.refusal(), request)
                    .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer error=\"invalid_token\"");
        }
        if (caller.get().role() != Role.ADMIN && caller.get().role() != Role.VIEWER) {
            return problem(HttpStatus.FORBIDDEN, "Role '" + caller.get().role().name().toLowerCase()
                    + "' may not read /metrics; allowed: [admin, viewer]", request);
        }
        return null;
    }

    private static io.micronaut.http.MutableHttpResponse<Problem> problem(HttpStatus status, String detail,
                                                                          HttpRequest<?> request) {
        return HttpResponse.<Problem>status(status)
                .body(new Problem("about:blank", status.getReason(), status.getCode(), detail, request.getPath(), List.of()))
                .contentType(Problem.MEDIA_TYPE);
    }
}
