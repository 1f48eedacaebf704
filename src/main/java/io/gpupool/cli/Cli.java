package io.gpupool.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code gpupool} command line: admin commands over the REST API and the job launcher. It
 * never starts Micronaut; {@code io.gpupool.Application} hands it every argument list that is not
 * a server start ({@link #startsServer}) or {@code replay}. Exit codes: 0 ok, 1 the server
 * refused (4xx) or a check failed, 2 usage, 3 server unreachable or 5xx; {@code run} exits with
 * its command's code once the command ran (docs/cli.md).
 */
@Command(name = "gpupool", mixinStandardHelpOptions = true, versionProvider = Cli.Version.class,
        description = "Pooled GPUs from the command line. Without a command (or with 'serve') the jar starts the server.",
        subcommands = {InventoryCommands.Devices.class, InventoryCommands.Nodes.class, InventoryCommands.Clusters.class,
                InventoryCommands.Pools.class, InventoryCommands.Quotas.class, WorkCommands.Requests.class,
                WorkCommands.Leases.class, WorkCommands.Queue.class, WorkCommands.Decisions.class,
                WorkCommands.Explain.class, PolicyCommands.class, WebhookCommands.class, ReportCommands.class, ImportCommand.class, RunCommand.class, AgentCommand.class,
                SimulateHistoryCommand.class},
        footer = {"", "Also: 'serve [--micronaut.x=y…]' starts the server; 'replay' replays a trace; 'simulate' replays a workload under several policies.",
                "Connection: --url or GPUPOOL_URL (default http://localhost:8080),",
                "--token or GPUPOOL_TOKEN, or url:/token: in ~/.config/gpupool/config.yaml.",
                "Exit codes: 0 ok, 1 refused by the server (4xx), 2 usage,",
                "3 unreachable or server error (5xx); 'run' exits with its command's code."})
public final class Cli implements Runnable {
    /** Arguments the server has always accepted: Micronaut properties such as --micronaut.server.port=8081. */
    private static final Pattern SERVER_PROPERTY = Pattern.compile("--?[a-z][\\w-]*(\\.[\\w-]+)+=.*");
    private static final Set<String> SERVE = Set.of("serve");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a command");
    }

    /** Whether these arguments start the server: none, {@code serve …}, or only Micronaut properties. */
    public static boolean startsServer(String... args) {
        if (args.length == 0 || SERVE.contains(args[0])) {
            return true;
        }
        for (String a : args) {
            if (!SERVER_PROPERTY.matcher(a).matches()) {
                return false;
            }
        }
        return true;
    }

    /** The server's arguments: those after {@code serve}, if it was given. */
    public static String[] serverArgs(String... args) {
        return args.length > 0 && SERVE.contains(args[0]) ? java.util.Arrays.copyOfRange(args, 1, args.length) : args;
    }

    public static int run(String... args) {
        return run(CliContext.system(), args);
    }

    static int run(CliContext context, String... args) {
        CommandLine cli = new CommandLine(new Cli(), new Factory(context));
        cli.setOut(context.out()).setErr(context.err());
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        cli.setExecutionExceptionHandler((e, line, parsed) -> {
            if (e instanceof CliFailure failure) {
                if (failure.exitCode() == CliFailure.USAGE) {
                    line.getErr().println("gpupool " + line.getCommandName() + ": " + failure.getMessage());
                    line.getErr().println("Try 'gpupool " + line.getCommandName() + " --help'.");
                } else {
                    line.getErr().println("gpupool: " + failure.getMessage());
                }
                line.getErr().flush();
                return failure.exitCode();
            }
            line.getErr().println("gpupool: " + e);
            line.getErr().flush();
            return 4;
        });
        int code = cli.execute(args);
        context.out().flush();
        context.err().flush();
        return code;
    }

    /** Creates commands with the context they print to and read the environment from. */
    private record Factory(CliContext context) implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> type) throws Exception {
            K made = CommandLine.defaultFactory().create(type);
            if (made instanceof RestCommand command) {
                command.context = context;
            }
            return made;
        }
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Cli.class.getPackage().getImplementationVersion();
            return new String[] {"gpupool " + (v == null ? "(development build)" : v)};
        }
    }
}
