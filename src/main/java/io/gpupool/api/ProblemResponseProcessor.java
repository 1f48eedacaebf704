package io.gpupool.api;

import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.Problem;
import io.gpupool.problem.ProblemException;
import io.micronaut.context.annotation.Primary;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.server.exceptions.response.Error;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Renders every error the server produces (ours, routing, JSON parsing, validation, body size) as
 * RFC 7807 problem JSON. Unexpected failures get an opaque incident id instead of internals. The
 * answer stays small whatever the input: messages quote excerpts ({@code FieldChecks.excerpt}), and
 * here every text is escaped and cut again, so no message can echo a huge or malformed input.
 */
@Singleton
@Primary
public class ProblemResponseProcessor implements ErrorResponseProcessor<Problem> {
    private static final Logger LOG = LoggerFactory.getLogger(ProblemResponseProcessor.class);

    @Override
    public MutableHttpResponse<Problem> processResponse(ErrorContext context, MutableHttpResponse<?> response) {
        Optional<Throwable> cause = context.getRootCause();
        Problem problem;
        if (cause.isPresent() && cause.get() instanceof ProblemException p) {
            io.micronaut.http.HttpStatus status = ProblemStatus.of(p.kind());
            response.status(status);
            problem = new Problem("about:blank", p.title(), status.getCode(), p.getMessage(), context.getRequest().getPath(),
                    p.errors());
        } else {
            problem = fromFramework(context, response.status());
        }
        problem = bounded(problem);
        if (context.getRequest().getMethod() == HttpMethod.HEAD) {
            return (MutableHttpResponse<Problem>) response;
        }
        return response.body(problem).contentType(Problem.MEDIA_TYPE);
    }

    static final int MAX_DETAIL = 1024;
    static final int MAX_ERROR = 512;
    static final int MAX_ERRORS = 50;
    static final int MAX_INSTANCE = 256;

    private static Problem bounded(Problem p) {
        List<String> errors = new ArrayList<>();
        for (String e : p.errors() == null ? List.<String>of() : p.errors()) {
            if (errors.size() == MAX_ERRORS) {
                errors.add("… and " + (p.errors().size() - MAX_ERRORS) + " more");
                break;
            }
            errors.add(FieldChecks.clip(String.valueOf(e), MAX_ERROR));
        }
        return new Problem(p.type(), p.title(), p.status(), p.detail() == null ? null : FieldChecks.clip(p.detail(), MAX_DETAIL),
                p.instance() == null ? null : FieldChecks.clip(p.instance(), MAX_INSTANCE), errors);
    }

    private Problem fromFramework(ErrorContext context, HttpStatus status) {
        String path = context.getRequest().getPath();
        if (status.getCode() >= 500) {
            String incident = UUID.randomUUID().toString();
            LOG.error("Incident {} on {} {}", incident, context.getRequest().getMethod(), path,
                    context.getRootCause().orElse(null));
            return new Problem("about:blank", "Internal error", status.getCode(),
                    "The server failed to process the request; incident " + incident + " is in its log.", path,
                    List.of());
        }
        List<String> messages = new ArrayList<>();
        for (Error e : context.getErrors()) {
            messages.add(e.getPath().map(p -> p + ": ").orElse("") + e.getMessage());
        }
        String detail = messages.isEmpty() ? status.getReason() : messages.get(0);
        return new Problem("about:blank", status.getReason(), status.getCode(), detail, path,
                messages.size() > 1 ? messages : List.of());
    }
}
