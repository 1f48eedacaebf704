package io.gpupool.api;

import io.gpupool.auth.Allow;
import io.gpupool.auth.Caller;
import io.swagger.v3.oas.annotations.Parameter;
import io.gpupool.auth.IssuedToken;
import io.gpupool.auth.Role;
import io.gpupool.auth.TokenInfo;
import io.gpupool.auth.TokenService;
import io.gpupool.problem.ProblemException;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;

import java.util.List;

/**
 * API tokens: admins issue and revoke them, org-admins the tenant tokens of their subtree; the
 * secret is returned once, at issue. {@code GET ?unusedForDays=N} lists those not used for N days.
 */
@Controller("/api/v1/tokens")
public class TokenController {
    private final TokenService tokens;

    TokenController(TokenService tokens) {
        this.tokens = tokens;
    }

    public record TokenRequest(String name, Role role, @Nullable String tenantId, @Nullable List<String> nodes,
                               @Nullable java.time.Instant expiresAt) {
    }

    @Post
    @Allow({Role.ADMIN, Role.ORG_ADMIN})
    public HttpResponse<IssuedToken> issue(@Nullable @Body TokenRequest body, @Parameter(hidden = true) Caller caller) {
        if (body == null) {
            throw ProblemException.invalid("A token request body is required: {name, role, tenantId?, nodes?}");
        }
        return HttpResponse.created(tokens.issue(body.name(), body.role(), body.tenantId(), body.nodes(), body.expiresAt(), caller));
    }

    @Get
    @Allow({Role.ADMIN, Role.ORG_ADMIN})
    public List<TokenInfo> list(@Nullable @QueryValue Integer unusedForDays, @Parameter(hidden = true) Caller caller) {
        return tokens.list(unusedForDays, caller);
    }

    @Delete("/{id}")
    @Allow({Role.ADMIN, Role.ORG_ADMIN})
    public TokenInfo revoke(@PathVariable String id, @Parameter(hidden = true) Caller caller) {
        return tokens.revoke(id, caller);
    }

    @Get("/me")
    @Allow({Role.ADMIN, Role.VIEWER, Role.TENANT, Role.AGENT, Role.ORG_ADMIN})
    public Caller me(@Parameter(hidden = true) Caller caller) {
        return caller;
    }
}
