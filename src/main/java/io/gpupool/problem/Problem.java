package io.gpupool.problem;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/** RFC 7807 problem details; {@code errors} lists every individual message when there are several. */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Problem(String type, String title, int status, String detail, String instance, List<String> errors) {
    public static final String MEDIA_TYPE = "application/problem+json";
}
