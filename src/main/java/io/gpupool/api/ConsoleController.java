package io.gpupool.api;

import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.swagger.v3.oas.annotations.Hidden;

import java.net.URI;

/**
 * The web console lives at {@code /console/} (static files, application.yml); the service's root
 * sends the browser there. No token: the console's files hold no data, and every call they make to
 * {@code /api} carries the signed-in token (docs/console.md).
 */
@Controller
@Hidden
public class ConsoleController {
    static final URI CONSOLE = URI.create("/console/");

    @Get("/")
    public HttpResponse<?> root() {
        return HttpResponse.seeOther(CONSOLE);
    }
}
