package io.gpupool.api;

import io.gpupool.auth.Allow;
import io.gpupool.auth.Caller;
import io.swagger.v3.oas.annotations.Parameter;
import io.gpupool.auth.Role;
import io.gpupool.governance.ActivationResult;
import io.gpupool.governance.ChainVerification;
import io.gpupool.governance.DryRunLog;
import io.gpupool.governance.DryRunRecord;
import io.gpupool.governance.DryRunReport;
import io.gpupool.governance.DryRunRequest;
import io.gpupool.governance.HistoryRecord;
import io.gpupool.governance.PolicyDryRunService;
import io.gpupool.governance.PolicyHistory;
import io.gpupool.governance.PolicyLifecycle;
import io.gpupool.governance.PolicyVersion;
import io.gpupool.governance.RuleSetArchive;
import io.gpupool.governance.UploadResult;
import io.gpupool.problem.ProblemException;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Part;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.multipart.CompletedFileUpload;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/** Rule-set versions: upload, validate, dry-run, activate, roll back, and the audited history. */
@Controller("/api/v1/policies")
public class PolicyController {
    private final PolicyLifecycle lifecycle;
    private final PolicyDryRunService dryRuns;
    private final PolicyHistory history;
    private final DryRunLog dryRunLog;

    PolicyController(PolicyLifecycle lifecycle, PolicyDryRunService dryRuns, PolicyHistory history, DryRunLog dryRunLog) {
        this.dryRunLog = dryRunLog;
        this.lifecycle = lifecycle;
        this.dryRuns = dryRuns;
        this.history = history;
    }

    public record Upload(String message, Map<String, String> files) {
    }

    public record Change(@Nullable String message) {
    }

    public record VersionList(Long active, List<PolicyVersion> versions) {
    }

    public record VersionFiles(PolicyVersion version, boolean active, Map<String, String> files) {
    }

    @Post
    @Consumes(MediaType.APPLICATION_JSON)
    @Allow(Role.ADMIN)
    public HttpResponse<UploadResult> upload(@Nullable @Body Upload body, @Parameter(hidden = true) Caller caller) {
        if (body == null) {
            throw ProblemException.invalid("Body required: {message, files: {path: text}}");
        }
        return HttpResponse.created(lifecycle.upload(body.files(), body.message(), caller.principal()));
    }

    @Post
    @Consumes(MediaType.MULTIPART_FORM_DATA)
    @Allow(Role.ADMIN)
    public HttpResponse<UploadResult> uploadArchive(@Part("archive") CompletedFileUpload archive,
                                                    @Part("message") String message, @Parameter(hidden = true) Caller caller) throws IOException {
        Map<String, String> files = RuleSetArchive.read(archive.getInputStream());
        return HttpResponse.created(lifecycle.upload(files, message, caller.principal()));
    }

    @Get
    @Allow({Role.ADMIN, Role.VIEWER})
    public VersionList list() {
        return new VersionList(lifecycle.currentVersion().orElse(null), lifecycle.versions());
    }

    @Get("/{version}")
    @Allow({Role.ADMIN, Role.VIEWER})
    public VersionFiles get(@PathVariable String version) {
        long number = parse(version);
        return new VersionFiles(lifecycle.version(number), lifecycle.currentVersion().orElse(-1L) == number,
                lifecycle.load(number).files());
    }

    @Post("/{version}/activate")
    @Allow(Role.ADMIN)
    public ActivationResult activate(@PathVariable String version, @Nullable @Body Change body, @Parameter(hidden = true) Caller caller) {
        return lifecycle.activate(parse(version), caller.principal(), body == null ? null : body.message(), false);
    }

    @Post("/{version}/rollback")
    @Allow(Role.ADMIN)
    public ActivationResult rollback(@PathVariable String version, @Nullable @Body Change body, @Parameter(hidden = true) Caller caller) {
        return lifecycle.activate(parse(version), caller.principal(), body == null ? null : body.message(), true);
    }

    @Post("/dry-run")
    @Allow(Role.ADMIN)
    public DryRunReport dryRun(@Nullable @Body DryRunRequest request, @Parameter(hidden = true) Caller caller) {
        return dryRuns.dryRun(request, caller.principal());
    }

    @Get("/dry-runs")
    @Allow({Role.ADMIN, Role.VIEWER})
    public List<DryRunRecord> dryRuns() {
        return dryRunLog.all();
    }

    @Get("/history")
    @Allow({Role.ADMIN, Role.VIEWER})
    public List<HistoryRecord> history() {
        return history.all();
    }

    @Get("/history/verify")
    @Allow({Role.ADMIN, Role.VIEWER})
    public ChainVerification verify() {
        return history.verify();
    }

    /** Accepts "7" or "v7". */
    private static long parse(String version) {
        String digits = version.startsWith("v") ? version.substring(1) : version;
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw ProblemException.invalid("A policy version is a number such as 7 or v7, was '" + io.gpupool.problem.FieldChecks.excerpt(version) + "'");
        }
    }
}
