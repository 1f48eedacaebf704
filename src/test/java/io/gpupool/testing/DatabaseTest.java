package io.gpupool.testing;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test that talks to the database. It runs on H2 in the default surefire pass and again on
 * PostgreSQL in the "postgresql" pass (see pom.xml); there it is skipped, with a message saying so,
 * when PostgreSQL is not reachable.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("database")
@ExtendWith(DatabaseAvailability.class)
public @interface DatabaseTest {
}
