package io.gpupool;

import io.gpupool.cli.Cli;
import io.gpupool.replay.ReplayCommand;
import io.gpupool.simulation.SimulateCommand;
import io.micronaut.runtime.Micronaut;
import io.swagger.v3.oas.annotations.OpenAPIDefinition;
import io.swagger.v3.oas.annotations.enums.SecuritySchemeType;
import io.swagger.v3.oas.annotations.info.Info;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import io.swagger.v3.oas.annotations.security.SecurityScheme;

/**
 * Entry point: with no arguments, {@code serve …} or only Micronaut properties it starts the REST
 * service; {@code replay …} runs the offline replay harness; {@code simulate …} the offline policy replay; anything else is the command line
 * ({@link Cli}), which never starts the server: an unknown command is a usage error (exit 2).
 * Every /api operation takes a bearer token ({@code auth.AuthFilter}); the spec says so once, here.
 */
@OpenAPIDefinition(info = @Info(title = "gpupool", version = "v1",
        description = "Governs a pooled fleet of GPUs: inventory, tenants, pools, quotas, policy and leases. "
                + "Every /api/v1 operation takes an API token: 'Authorization: Bearer <token>'."),
        security = @SecurityRequirement(name = "bearer"))
@SecurityScheme(name = "bearer", type = SecuritySchemeType.HTTP, scheme = "bearer",
        description = "An API token issued by POST /api/v1/tokens (admin, tenant or viewer role)")
public class Application {
    public static void main(String[] args) {
        if (Cli.startsServer(args)) {
            Micronaut.run(Application.class, Cli.serverArgs(args));
        } else if ("simulate".equals(args[0]) && !repliesRecordedHistory(args)) {
            System.exit(SimulateCommand.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
        } else if ("replay".equals(args[0])) {
            System.exit(ReplayCommand.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
        } else {
            System.exit(Cli.run(args));
        }
    }

    /** {@code simulate --history …} asks the service for a replay job (the REST command line), not the offline replay. */
    private static boolean repliesRecordedHistory(String[] args) {
        return java.util.Arrays.stream(args).anyMatch(a -> a.equals("--history") || a.startsWith("--history="));
    }
}
