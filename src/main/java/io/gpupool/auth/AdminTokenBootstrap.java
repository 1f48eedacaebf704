package io.gpupool.auth;

import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Value;
import jakarta.annotation.PostConstruct;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure an admin can always get in: {@code GPUPOOL_ADMIN_TOKEN} (gpupool.admin-token) is
 * registered as an admin token at every start; without it, and with no admin token stored yet, one is
 * generated and printed exactly once.
 */
@Context
public class AdminTokenBootstrap {
    private static final Logger LOG = LoggerFactory.getLogger(AdminTokenBootstrap.class);

    private final TokenService tokens;
    private final String configured;

    AdminTokenBootstrap(TokenService tokens, @Value("${gpupool.admin-token:}") String configured) {
        this.tokens = tokens;
        this.configured = configured;
    }

    @PostConstruct
    void ensureAdmin() {
        if (configured != null && !configured.isBlank()) {
            if (configured.length() < 12) {
                throw new IllegalStateException("GPUPOOL_ADMIN_TOKEN must be at least 12 characters long");
            }
            tokens.register("bootstrap-admin", Role.ADMIN, configured, "GPUPOOL_ADMIN_TOKEN");
            return;
        }
        if (!tokens.hasActiveAdmin()) {
            IssuedToken issued = tokens.issue("generated-admin", Role.ADMIN, null, "first start");
            // Printed to stdout on purpose, once: it is never stored in clear and cannot be shown again.
            System.out.println("gpupool: generated admin token (shown once, store it now): " + issued.secret());
            LOG.warn("No GPUPOOL_ADMIN_TOKEN configured: generated admin token {} (printed on stdout)", issued.token().id());
        }
    }
}
