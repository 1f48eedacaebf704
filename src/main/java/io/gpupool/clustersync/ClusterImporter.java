package io.gpupool.clustersync;

import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.util.List;
import java.util.Locale;

/**
 * An import as the API and the CLI make it: a document in a named format, read whole (a document
 * that cannot be read is refused with every problem and its place, nothing applied), then applied
 * to its cluster by {@link ClusterSyncService}.
 */
@Singleton
public class ClusterImporter {
    /** The formats {@code ?format=} takes. */
    public static final List<String> FORMATS = List.of(KubernetesNodeList.SOURCE, SlurmNodes.SOURCE);

    private final ClusterSyncService service;
    private final KubernetesNodeList kubernetes;
    private final Clock clock;

    ClusterImporter(ClusterSyncService service, Clock clock,
                    @Value("${gpupool.import.kubernetes.topology-labels:zone=topology.kubernetes.io/zone,region=topology.kubernetes.io/region}") String topology,
                    @Value("${gpupool.import.kubernetes.rack-label:}") String rackLabel,
                    @Value("${gpupool.import.kubernetes.ignored-taints:nvidia.com/gpu}") String ignoredTaints) {
        this.service = service;
        this.clock = clock;
        this.kubernetes = new KubernetesNodeList(KubernetesLabels.of(topology, rackLabel, ignoredTaints));
    }

    public KubernetesNodeList kubernetes() {
        return kubernetes;
    }

    public SyncOutcome importText(String clusterId, String format, String site, String document, boolean dryRun, String by) {
        return service.apply(clusterId, site, read(format, document), dryRun, by);
    }

    /** The document read in {@code format}, or a 400 naming every problem. */
    public ClusterImport read(String format, String document) {
        String f = format == null ? null : format.toLowerCase(Locale.ROOT);
        if (f == null || !FORMATS.contains(f)) {
            throw ProblemException.invalid("format: one of " + FORMATS + " is required, was '" + FieldChecks.excerpt(format) + "'");
        }
        if (document == null || document.isBlank()) {
            throw ProblemException.invalid("A document is required as the body: " + (f.equals(KubernetesNodeList.SOURCE)
                    ? "kubectl get nodes -o json (or -o yaml)" : "scontrol show node -o"));
        }
        try {
            return f.equals(KubernetesNodeList.SOURCE) ? kubernetes.parse(document, clock.instant())
                    : SlurmNodes.parse(document, clock.instant());
        } catch (ImportFormatException e) {
            List<String> problems = e.problems();
            throw ProblemException.invalid("The import was not applied: the " + f + " document has " + problems.size()
                    + " problem(s); first: " + problems.get(0), problems);
        }
    }
}
