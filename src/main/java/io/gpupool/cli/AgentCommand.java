package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.gpupool.agent.DcgmScrape;
import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Capture;
import io.gpupool.agent.NvidiaSmiCsv;
import io.gpupool.agent.NvidiaSmiXml;
import io.gpupool.agent.ReportFormatException;
import io.gpupool.catalog.CardCatalog;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code gpupool agent}: reads this node's GPUs and reports them to the service
 * ({@code POST /api/v1/agent/reports}) every interval, or once. The node's place (cluster, site,
 * rack, labels) comes from the {@code agent:} section of the config file, since no GPU tool knows
 * it. Reports are numbered by their time in milliseconds, so a restarted agent continues its
 * sequence and the service can drop a report it already applied.
 */
@Command(name = "agent", mixinStandardHelpOptions = true,
        description = {"Report this node's GPUs to the service: inventory, health and activity.",
                "Sources, in order of preference: the dcgm-exporter endpoint (agent.dcgmUrl), nvidia-smi -q -x,",
                "nvidia-smi --query-gpu (CSV). --once --print prints one report as JSON without sending it;",
                "--from-file reads a saved output instead of running a tool."})
final class AgentCommand extends RestCommand {
    static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(30);
    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(20);
    static final ObjectMapper REPORT_JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

    enum Format {
        NVIDIA_SMI_XML("nvidia-smi-xml"), NVIDIA_SMI_CSV("nvidia-smi-csv"), DCGM("dcgm");

        final String label;

        Format(String label) {
            this.label = label;
        }

        static Format of(String text) {
            for (Format f : values()) {
                if (f.label.equalsIgnoreCase(text) || f.name().equalsIgnoreCase(text)) {
                    return f;
                }
            }
            throw CliFailure.usage("--format: one of nvidia-smi-xml, nvidia-smi-csv, dcgm; was '" + text + "'");
        }
    }

    @Option(names = "--once", description = "read and report once, then exit")
    boolean once;
    @Option(names = "--print", description = "print the report as JSON instead of sending it")
    boolean print;
    @Option(names = "--from-file", paramLabel = "PATH", description = "read this saved output instead of running a tool")
    Path fromFile;
    @Option(names = "--format", paramLabel = "FORMAT", description = "of --from-file: nvidia-smi-xml, nvidia-smi-csv or dcgm")
    String format;
    @Option(names = "--node", paramLabel = "ID", description = "node id (default: agent.node in the config file, else the host name)")
    String node;
    @Option(names = "--interval", paramLabel = "DURATION", description = "between reports (default: agent.interval, else 30s)")
    String interval;

    Clock clock = Clock.systemUTC();

    @Override
    public Integer call() {
        JsonNode agent = connection.readConfig(context).path("agent");
        if (fromFile != null && format == null) {
            throw CliFailure.usage("--from-file needs --format nvidia-smi-xml, nvidia-smi-csv or dcgm");
        }
        if (format != null && fromFile == null) {
            throw CliFailure.usage("--format only describes --from-file");
        }
        Duration every = interval != null ? Connection.Durations.parse(interval)
                : agent.hasNonNull("interval") ? Connection.Durations.parse(agent.get("interval").asText()) : DEFAULT_INTERVAL;
        if (every.isZero() || every.isNegative()) {
            throw CliFailure.usage("--interval must be positive");
        }
        RestClient api = print ? null : connection.client(context);
        while (true) {
            NodeReport report = report(agent, every);
            if (print) {
                context.out().println(json(report));
                context.out().flush();
            } else {
                try {
                    JsonNode answer = api.post("/api/v1/agent/reports", REPORT_JSON.valueToTree(report));
                    if (once) {
                        printJson(answer);
                    }
                } catch (CliFailure failure) {
                    if (once) {
                        throw failure;
                    }
                    // A service that is down or refuses one report must not stop the agent: the next
                    // report carries the whole state again.
                    context.err().println("gpupool agent: " + failure.getMessage());
                    context.err().flush();
                }
            }
            if (once) {
                return 0;
            }
            try {
                Thread.sleep(every.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            }
        }
    }

    @Override
    int run(RestClient api) {
        throw new UnsupportedOperationException("call() runs the agent");
    }

    NodeReport report(JsonNode agent, Duration every) {
        Capture capture;
        try {
            capture = fromFile != null ? fromFile(Format.of(format)) : live(agent);
        } catch (ReportFormatException e) {
            throw new CliFailure(CliFailure.REFUSED, (fromFile != null ? fromFile + ": " : "") + e.getMessage());
        }
        Instant at = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        Map<String, String> labels = new LinkedHashMap<>();
        agent.path("labels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
        return new NodeReport(nodeId(agent), text(agent, "cluster"), text(agent, "site"), text(agent, "rack"), labels,
                at.toEpochMilli(), at, (int) every.toSeconds(), capture.source(), capture.driverVersion(),
                capture.cudaVersion(), capture.gpus());
    }

    private Capture fromFile(Format f) {
        String text;
        try {
            text = Files.readString(fromFile, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw CliFailure.usage("cannot read " + fromFile + ": " + e.getMessage());
        }
        CardCatalog catalog = CardCatalog.standard();
        return switch (f) {
            case NVIDIA_SMI_XML -> NvidiaSmiXml.parse(text, catalog);
            case NVIDIA_SMI_CSV -> NvidiaSmiCsv.parse(text, catalog);
            case DCGM -> DcgmScrape.parse(text, catalog);
        };
    }

    /**
     * This machine's GPUs: nvidia-smi's XML (with {@code -L} to name MIG devices), else its CSV
     * query; DCGM's activity laid over either when a dcgm-exporter URL is configured, or DCGM
     * alone when nvidia-smi cannot be run.
     */
    private Capture live(JsonNode agent) {
        CardCatalog catalog = CardCatalog.standard();
        String smi = agent.hasNonNull("nvidiaSmi") ? agent.get("nvidiaSmi").asText() : "nvidia-smi";
        Capture dcgm = null;
        if (agent.hasNonNull("dcgmUrl")) {
            dcgm = DcgmScrape.parse(new RestClient(agent.get("dcgmUrl").asText(), null, TOOL_TIMEOUT).text(""), catalog);
        }
        Capture inventory;
        String xml = runTool(smi, "-q", "-x");
        if (xml != null) {
            String listing = runTool(smi, "-L");
            inventory = io.gpupool.agent.NvidiaSmiList.withListing(NvidiaSmiXml.parse(xml, catalog), listing);
        } else {
            String csv = runTool(smi, "--query-gpu=" + String.join(",", NvidiaSmiCsv.QUERY_FIELDS), "--format=csv");
            inventory = csv == null ? null : NvidiaSmiCsv.parse(csv + "\n" + nullToEmpty(runTool(smi, "-L")), catalog);
        }
        if (inventory == null && dcgm == null) {
            throw new CliFailure(CliFailure.UNREACHABLE, "no source: " + smi + " cannot be run and agent.dcgmUrl is not set");
        }
        return inventory == null ? dcgm : dcgm == null ? inventory : DcgmScrape.overlay(inventory, dcgm);
    }

    /** The tool's stdout, or null when it cannot be run or fails (then the next source is tried). */
    private String runTool(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(false).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(TOOL_TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return null;
            }
            return p.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private String nodeId(JsonNode agent) {
        if (node != null && !node.isBlank()) {
            return node;
        }
        if (text(agent, "node") != null) {
            return text(agent, "node");
        }
        String host = context.env().get("HOSTNAME");
        if (host != null && !host.isBlank()) {
            return host;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            throw CliFailure.usage("cannot tell this host's name; give --node or agent.node in the config file");
        }
    }

    private static String text(JsonNode node, String field) {
        return node.hasNonNull(field) ? node.get(field).asText() : null;
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    static String json(NodeReport report) {
        try {
            return REPORT_JSON.writerWithDefaultPrettyPrinter().writeValueAsString(report);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a report is plain data", e);
        }
    }
}
