package io.gpupool.auth;

import io.gpupool.problem.Problem;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.web.router.RouteAttributes;
import io.micronaut.web.router.RouteMatch;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Authenticates every /api request by bearer token and checks the role its endpoint declares with
 * {@link Allow}. Missing, unknown or expired token → 401 (an expired one says so); role not admitted or no declaration → 403.
 * Tenant scoping of individual objects is checked where the object is known (controllers, via {@link Caller}).
 */
@ServerFilter("/api/**")
public class AuthFilter {
    static final String CALLER = "gpupool.caller";
    private static final String BEARER = "Bearer ";

    private final TokenService tokens;

    AuthFilter(TokenService tokens) {
        this.tokens = tokens;
    }

    @RequestFilter
    @Nullable
    public HttpResponse<?> authenticate(HttpRequest<?> request) {
        String header = request.getHeaders().get(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.startsWith(BEARER)) {
            return problem(HttpStatus.UNAUTHORIZED, "Missing bearer token: send 'Authorization: Bearer <token>'", request)
                    .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
        }
        Authentication checked = tokens.check(header.substring(BEARER.length()).trim());
        if (!checked.isValid()) {
            return problem(HttpStatus.UNAUTHORIZED, checked.refusal(), request)
                    .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer error=\"invalid_token\"");
        }
        Optional<Caller> caller = Optional.of(checked.caller());
        Optional<RouteMatch<?>> route = RouteAttributes.getRouteMatch(request);
        if (route.isEmpty()) {
            return null; // no such endpoint: let the router answer 404/405
        }
        Role[] allowed = route.get().getAnnotationMetadata().enumValues(Allow.class, Role.class);
        if (allowed.length == 0) {
            return problem(HttpStatus.FORBIDDEN, "This endpoint declares no role and is closed", request);
        }
        if (!Arrays.asList(allowed).contains(caller.get().role())) {
            return problem(HttpStatus.FORBIDDEN, "Role '" + caller.get().role().name().toLowerCase()
                    + "' may not call this endpoint; allowed: " + Arrays.toString(allowed).toLowerCase(), request);
        }
        request.setAttribute(CALLER, caller.get());
        return null;
    }

    private static MutableHttpResponse<Problem> problem(HttpStatus status, String detail, HttpRequest<?> request) {
        return HttpResponse.<Problem>status(status)
                .body(new Problem("about:blank", status.getReason(), status.getCode(), detail,
                        io.gpupool.problem.FieldChecks.clip(request.getPath(), 256), List.of()))
                .contentType(Problem.MEDIA_TYPE);
    }
}
