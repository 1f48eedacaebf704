package io.gpupool.api;

import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpResponse;

import java.util.List;

/** RFC 4180 CSV bodies for reports asked for with {@code Accept: text/csv}. */
final class Csv {
    static final String TYPE = "text/csv";

    private final StringBuilder text = new StringBuilder();

    private Csv() {
    }

    static boolean wanted(HttpRequest<?> request) {
        String accept = request.getHeaders().get(HttpHeaders.ACCEPT);
        return accept != null && accept.toLowerCase(java.util.Locale.ROOT).contains(TYPE);
    }

    static Csv header(List<String> columns) {
        return new Csv().row(columns);
    }

    Csv row(List<?> values) {
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                text.append(',');
            }
            text.append(quote(values.get(i)));
        }
        text.append("\r\n");
        return this;
    }

    MutableHttpResponse<String> response() {
        return HttpResponse.ok(text.toString()).contentType(TYPE + "; charset=utf-8");
    }

    private static String quote(Object value) {
        String s = value == null ? "" : value.toString();
        return s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")
                ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }
}
