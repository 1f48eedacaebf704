package io.gpupool.auth;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The roles an endpoint admits. Every API endpoint must carry one (on the method or its controller):
 * an endpoint without it is refused to everybody, so a forgotten declaration fails closed.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Allow {
    Role[] value();
}
