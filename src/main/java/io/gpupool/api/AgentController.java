package io.gpupool.api;

import io.gpupool.auth.Allow;
import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.nodereport.AgentReportLane;
import io.gpupool.nodereport.AgentReportService;
import io.gpupool.nodereport.ReportOutcome;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Parameter;

/**
 * Node agents' reports ({@code gpupool agent}): an agent token reports for the nodes it is bound
 * to; an admin may post a saved report for any node. Applied all or nothing; a report already
 * applied (same or older sequence number) answers 200 with {@code applied: false}. Reports run on
 * their own low-priority threads ({@link AgentReportLane}), beside the lease path rather than in it.
 */
@Controller("/api/v1/agent")
public class AgentController {
    private final AgentReportService reports;

    AgentController(AgentReportService reports) {
        this.reports = reports;
    }

    @Post("/reports")
    @ExecuteOn(AgentReportLane.NAME)
    @Consumes(MediaType.APPLICATION_JSON)
    @Allow({Role.AGENT, Role.ADMIN})
    public ReportOutcome report(@Nullable @Body String body, @Parameter(hidden = true) Caller caller) {
        return reports.apply(body, caller);
    }
}
