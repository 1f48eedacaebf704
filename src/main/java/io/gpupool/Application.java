package io.gpupool;

import io.gpupool.cli.Cli;
import io.gpupool.replay.ReplayCommand;
import io.micronaut.runtime.Micronaut;
import io.swagger.v3.oas.annotations.OpenAPIDefinition;
import io.swagger.v3.oas.annotations.info.Info;

/**
 * Entry point: with no arguments, {@code serve …} or only Micronaut properties it starts the REST
 * service; {@code replay …} runs the offline replay harness; anything else is the command line
 * ({@link Cli}), which never starts the server: an unknown command is a usage error (exit 2).
 */
@OpenAPIDefinition(info = @Info(title = "gpupool", version = "v1",
        description = "Governs a pooled fleet of GPUs: inventory, tenants, pools, quotas, policy and leases."))
public class Application {
    public static void main(String[] args) {
        if (Cli.startsServer(args)) {
            Micronaut.run(Application.class, Cli.serverArgs(args));
        } else if ("replay".equals(args[0])) {
            System.exit(ReplayCommand.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
        } else {
            System.exit(Cli.run(args));
        }
    }
}
