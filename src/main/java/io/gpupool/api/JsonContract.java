package io.gpupool.api;

import com.fasterxml.jackson.databind.Module;
import io.micronaut.context.annotation.Factory;
import io.gpupool.problem.WellFormedText;
import jakarta.inject.Singleton;

/**
 * What every JSON body must be, for all body types at once: strings of well-formed Unicode
 * ({@link WellFormedText}); scalars as scalars (no one-element array for a value, no bare value
 * for a list: {@code jackson.deserialization} in application.yml).
 */
@Factory
class JsonContract {
    @Singleton
    Module wellFormedText() {
        return new WellFormedText();
    }
}
