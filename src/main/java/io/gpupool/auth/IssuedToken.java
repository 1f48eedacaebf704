package io.gpupool.auth;

/** A newly issued token; the only moment its secret is ever shown. */
public record IssuedToken(TokenInfo token, String secret) {
}
