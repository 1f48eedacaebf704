package io.gpupool.api;

import io.gpupool.auth.Allow;
import io.gpupool.auth.Role;
import io.gpupool.simulation.ReplayAsk;
import io.gpupool.simulation.ReplayJob;
import io.gpupool.simulation.ReplayJobs;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;

/**
 * Policy replays as asynchronous jobs (docs/api.md, "Policy replay"): ask for one (202, refused at
 * once with a problem naming the file, line and field when its input does not check), follow its
 * status and progress, read its summary and files, cancel it. Admins and viewers.
 */
@Controller("/api/v1/policies/replay")
public class PolicyReplayController {
    private final ReplayJobs jobs;

    PolicyReplayController(ReplayJobs jobs) {
        this.jobs = jobs;
    }

    @Post
    @Allow({Role.ADMIN, Role.VIEWER})
    public HttpResponse<ReplayJob> submit(@Nullable @Body ReplayAsk ask) {
        return HttpResponse.accepted().body(jobs.submit(ask));
    }

    @Get
    @Allow({Role.ADMIN, Role.VIEWER})
    public java.util.List<ReplayJob> list() {
        return jobs.list();
    }

    @Get("/{id}")
    @Allow({Role.ADMIN, Role.VIEWER})
    public ReplayJob get(@PathVariable String id) {
        return jobs.get(id);
    }

    @Get("/{id}/files/{name}")
    @Allow({Role.ADMIN, Role.VIEWER})
    public HttpResponse<byte[]> file(@PathVariable String id, @PathVariable String name) {
        byte[] content = jobs.file(id, name);
        return HttpResponse.ok(content).contentType(name.endsWith(".png") ? MediaType.IMAGE_PNG_TYPE
                : MediaType.of("text/csv"));
    }

    @Delete("/{id}")
    @Allow({Role.ADMIN, Role.VIEWER})
    public HttpResponse<ReplayJob> cancel(@PathVariable String id) {
        return HttpResponse.accepted().body(jobs.cancel(id));
    }
}
