package io.gpupool;

import io.gpupool.replay.ReplayCommand;
import io.micronaut.runtime.Micronaut;
import io.swagger.v3.oas.annotations.OpenAPIDefinition;
import io.swagger.v3.oas.annotations.info.Info;

/** Entry point: starts the REST service; {@code replay ...} runs the offline replay harness instead. */
@OpenAPIDefinition(info = @Info(title = "gpupool", version = "v1",
        description = "Governs a pooled fleet of GPUs: inventory, tenants, pools, quotas, policy and leases."))
public class Application {
    public static void main(String[] args) {
        if (args.length > 0 && "replay".equals(args[0])) {
            System.exit(ReplayCommand.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
        }
        Micronaut.run(Application.class, args);
    }
}
