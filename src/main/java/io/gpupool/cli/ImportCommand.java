package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code gpupool import k8s|slurm --cluster NAME FILE}: posts a Kubernetes NodeList or a Slurm node
 * dump to {@code POST /api/v1/clusters/{NAME}/import} and prints what was added, changed and
 * retired ({@code --dry-run}: what would be). {@code -} reads the document from stdin, so
 * {@code kubectl get nodes -o json | gpupool import k8s --cluster fra-k8s -} works.
 */
@Command(name = "import", mixinStandardHelpOptions = true,
        description = "Import a whole cluster: a Kubernetes NodeList (k8s) or 'scontrol show node -o' output (slurm).")
final class ImportCommand extends RestCommand {
    @Parameters(index = "0", paramLabel = "FORMAT", description = "k8s or slurm") String format;
    @Parameters(index = "1", paramLabel = "FILE", description = "the document; - for stdin") String file;
    @Option(names = "--cluster", required = true, description = "the cluster it is (created if new)") String cluster;
    @Option(names = "--site", description = "the site of a new cluster (default: a site named like the cluster)") String site;
    @Option(names = "--dry-run", description = "only report what the import would do") boolean dryRun;

    @Override
    int run(RestClient api) {
        if (!format.equals("k8s") && !format.equals("slurm")) {
            throw CliFailure.usage("FORMAT is k8s or slurm, was '" + format + "'");
        }
        String document = read();
        String type = format.equals("slurm") ? "text/plain"
                : document.stripLeading().startsWith("{") ? "application/json" : "application/yaml";
        JsonNode outcome = api.postDocument(RestClient.query("/api/v1/clusters/" + RestClient.segment(cluster) + "/import",
                RestClient.params("format", format, "site", site, "dryRun", dryRun ? "true" : null)), document, type);
        return show(outcome, () -> {
            var out = context.out();
            out.println((outcome.path("dryRun").asBoolean() ? "would import " : "imported ") + "cluster " + cluster
                    + (outcome.path("clusterCreated").asBoolean() ? " (new)" : "") + " from " + format);
            for (String what : new String[]{"nodes", "gpus"}) {
                JsonNode c = outcome.path(what);
                out.println("  " + what + ": " + c.path("added").asInt() + " added, " + c.path("changed").asInt() + " changed, "
                        + c.path("retired").asInt() + " retired, " + c.path("unchanged").asInt() + " unchanged");
            }
            out.println("  MIG instances: " + outcome.path("migInstances").asInt());
            for (JsonNode s : outcome.path("skipped")) {
                out.println("  skipped " + s.path("node").asText() + ": " + s.path("reason").asText());
            }
            for (JsonNode change : outcome.path("changes")) {
                out.println("  " + change.asText());
            }
            out.flush();
        });
    }

    private String read() {
        try {
            return file.equals("-") ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8)
                    : Files.readString(Path.of(file), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw CliFailure.usage("cannot read " + file + ": " + e.getMessage());
        }
    }
}
