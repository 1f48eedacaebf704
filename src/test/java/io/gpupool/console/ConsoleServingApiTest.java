package io.gpupool.console;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console's files are served without a token and under a strict Content-Security-Policy; the
 * service's root leads to it; its pages hold no inline script or style and insert no markup from data.
 */
@MicronautTest(transactional = false)
class ConsoleServingApiTest {
    static final Path CONSOLE = Path.of("src/main/resources/console");

    @Inject
    @Client("/")
    HttpClient client;

    private HttpResponse<String> get(String path) {
        try {
            return client.toBlocking().exchange(HttpRequest.GET(path), String.class);
        } catch (HttpClientResponseException e) {
            return (HttpResponse<String>) e.getResponse();
        }
    }

    @Test
    void theServicesRootSendsTheBrowserToTheConsole() {
        HttpResponse<String> root = get("/");
        // the client follows the 303: what it lands on is the console's page
        assertThat(root.code()).isEqualTo(200);
        assertThat(root.body()).contains("<title>gpupool console</title>");
    }

    @Test
    void theConsolePageAndItsScriptsAreServedWithoutATokenUnderAStrictContentSecurityPolicy() {
        for (String path : List.of("/console/", "/console/app.js", "/console/views/policy.js", "/console/console.css")) {
            HttpResponse<String> answer = get(path);
            assertThat(answer.code()).as(path).isEqualTo(200);
            String csp = answer.getHeaders().get("Content-Security-Policy");
            assertThat(csp).as(path).contains("default-src 'none'", "script-src 'self'", "style-src 'self'",
                    "connect-src 'self'", "frame-ancestors 'none'").doesNotContain("unsafe");
            assertThat(answer.getHeaders().get("X-Content-Type-Options")).isEqualTo("nosniff");
        }
        assertThat(get("/console/app.js").getContentType().orElseThrow().toString()).startsWith("application/javascript");
    }

    @Test
    void chartJsComesFromItsWebJarAtThePathTheConsoleLoads() {
        HttpResponse<String> chart = get("/console/lib/chart.js/chart.umd.js");

        assertThat(chart.code()).isEqualTo(200);
        assertThat(chart.body()).contains("Chart.js v4.5.1");
    }

    @Test
    void anUnknownConsoleFileIsANotFoundProblemAndTheApiStillNeedsAToken() {
        assertThat(get("/console/no-such-view.js").code()).isEqualTo(404);
        HttpResponse<String> api = get("/api/v1/devices");
        assertThat(api.code()).isEqualTo(401);
        assertThat(api.getContentType().orElseThrow().toString()).startsWith("application/problem+json");
    }

    @Test
    void theConsoleHasNoInlineScriptNoStyleAttributeAndNeverInsertsMarkupFromData() throws IOException {
        String index = Files.readString(CONSOLE.resolve("index.html"));
        Matcher scripts = Pattern.compile("<script([^>]*)>").matcher(index);
        int count = 0;
        while (scripts.find()) {
            count++;
            assertThat(scripts.group(1)).as("every script is a file").contains("src=");
        }
        assertThat(count).isEqualTo(2);
        assertThat(index).doesNotContain("style=", " onclick", " onload");
        try (Stream<Path> files = Files.walk(CONSOLE)) {
            for (Path js : files.filter(p -> p.toString().endsWith(".js")).toList()) {
                String text = Files.readString(js, StandardCharsets.UTF_8);
                assertThat(text).as(js.toString()).doesNotContain("innerHTML", "outerHTML", "insertAdjacentHTML",
                        "document.write", "eval(", "new Function");
            }
        }
    }

    @Test
    void theChartJsVersionTheConsoleMapsIsTheOneOnTheClasspath() throws IOException {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/resources/webjars/chart.js/4.5.1/dist/chart.umd.js")) {
            assertThat(in).as("application.yml's console-chartjs path names the WebJar's version (pom.xml)").isNotNull();
        }
    }
}
