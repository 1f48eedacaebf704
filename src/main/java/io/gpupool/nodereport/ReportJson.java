package io.gpupool.nodereport;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.gpupool.agent.NodeReport;
import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;

import java.util.List;

/**
 * Reads a report body strictly: an unknown field or a value of the wrong type is refused with its
 * path ({@code gpus[0].memoryMib}), because a misspelt field would otherwise drop a reading silently.
 */
final class ReportJson {
    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    private ReportJson() {
    }

    static NodeReport parse(String body) {
        if (body == null || body.isBlank()) {
            throw ProblemException.invalid("A report body is required (what 'gpupool agent --once --print' prints)");
        }
        try {
            NodeReport report = JSON.readValue(body, NodeReport.class);
            if (report == null) {
                throw ProblemException.invalid("A report body is required, got null");
            }
            return report;
        } catch (JsonMappingException e) {
            String path = path(e.getPath());
            String what = e.getOriginalMessage() == null ? "invalid" : e.getOriginalMessage().split("\n")[0];
            throw ProblemException.invalid("The report was not applied: " + (path.isEmpty() ? "" : path + ": ")
                    + FieldChecks.clip(what, 200), List.of((path.isEmpty() ? "report" : path) + ": " + FieldChecks.clip(what, 200)));
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr();
            throw ProblemException.invalid("The report is not valid JSON" + where);
        }
    }

    private static String path(List<JsonMappingException.Reference> refs) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference r : refs) {
            if (r.getFieldName() != null) {
                if (sb.length() > 0) {
                    sb.append('.');
                }
                sb.append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.toString();
    }
}
