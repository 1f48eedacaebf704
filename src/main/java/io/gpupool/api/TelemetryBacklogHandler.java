package io.gpupool.api;

import io.gpupool.telemetry.TelemetryBacklog;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import jakarta.inject.Singleton;

/** A full telemetry queue: 429 with Retry-After, so agents back off instead of the service buffering without bound. */
@Produces
@Singleton
public class TelemetryBacklogHandler implements ExceptionHandler<TelemetryBacklog, HttpResponse<?>> {
    private final ErrorResponseProcessor<?> processor;

    TelemetryBacklogHandler(ErrorResponseProcessor<?> processor) {
        this.processor = processor;
    }

    @Override
    public HttpResponse<?> handle(HttpRequest request, TelemetryBacklog exception) {
        ErrorContext context = ErrorContext.builder(request).cause(exception).errorMessage(exception.getMessage()).build();
        return processor.processResponse(context, HttpResponse.status(HttpStatus.TOO_MANY_REQUESTS)
                .header(HttpHeaders.RETRY_AFTER, Integer.toString(exception.retryAfterSeconds())));
    }
}
