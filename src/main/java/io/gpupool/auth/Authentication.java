package io.gpupool.auth;

import java.time.Instant;

/**
 * What a bearer secret is: a valid token's {@link Caller}, a token that expired (its name and
 * when, so the 401 can say so), or nothing we know (unknown or revoked: never told apart).
 */
public record Authentication(Caller caller, String expiredToken, Instant expiredAt) {
    static Authentication valid(Caller caller) {
        return new Authentication(caller, null, null);
    }

    static Authentication expired(String name, Instant at) {
        return new Authentication(null, name, at);
    }

    static Authentication unknown() {
        return new Authentication(null, null, null);
    }

    public boolean isValid() {
        return caller != null;
    }

    public boolean isExpired() {
        return expiredAt != null;
    }

    /** The 401's detail for a secret that is not valid. */
    public String refusal() {
        return isExpired() ? "Token '" + expiredToken + "' expired at " + expiredAt + "; ask an admin for a new one"
                : "Unknown or revoked token";
    }
}
