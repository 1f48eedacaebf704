package io.gpupool.api;

import io.gpupool.problem.ProblemException;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import jakarta.inject.Singleton;

/** Maps our refusals to their status, rendered by the shared problem processor. */
@Produces
@Singleton
public class ProblemExceptionHandler implements ExceptionHandler<ProblemException, HttpResponse<?>> {
    private final ErrorResponseProcessor<?> processor;

    ProblemExceptionHandler(ErrorResponseProcessor<?> processor) {
        this.processor = processor;
    }

    @Override
    public HttpResponse<?> handle(HttpRequest request, ProblemException exception) {
        ErrorContext context = ErrorContext.builder(request).cause(exception).errorMessage(exception.getMessage()).build();
        return processor.processResponse(context, HttpResponse.status(ProblemStatus.of(exception.kind())));
    }
}
