package io.gpupool.clustersync;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.gpupool.problem.ProblemException;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps the clusters configured under {@code gpupool.sync.kubernetes} equal to their API servers:
 * every {@code gpupool.sync.kubernetes-interval} (default 60 s) it lists the nodes with the
 * kubeconfig's credentials (fabric8's client reads the kubeconfig: contexts, certificates, tokens,
 * exec plugins) and applies them as a {@code k8s-api} import. A sync that fails (server
 * unreachable, credentials refused, a node the reader refuses) changes no inventory; the cluster
 * keeps its last good state and {@code GET /clusters} shows the failure next to it.
 */
@Singleton
public class KubernetesApiSync {
    public static final String SOURCE = "k8s-api";
    private static final Logger LOG = LoggerFactory.getLogger(KubernetesApiSync.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<KubernetesApiTarget> targets;
    private final ClusterImporter importer;
    private final ClusterSyncService service;
    private final Clock clock;

    KubernetesApiSync(List<KubernetesApiTarget> targets, ClusterImporter importer, ClusterSyncService service, Clock clock) {
        this.targets = List.copyOf(targets);
        this.importer = importer;
        this.service = service;
        this.clock = clock;
    }

    @Scheduled(fixedDelay = "${gpupool.sync.kubernetes-interval:60s}", initialDelay = "${gpupool.sync.kubernetes-initial-delay:10s}")
    void tick() {
        if (!targets.isEmpty()) {
            syncAll();
        }
    }

    /** Syncs every configured cluster once; the outcome of each, failures as a line of text. */
    public List<String> syncAll() {
        List<String> said = new ArrayList<>();
        for (KubernetesApiTarget t : targets) {
            try {
                SyncOutcome o = sync(t);
                said.add(t.getCluster() + ": " + o.nodes().added() + " node(s) added, " + o.nodes().changed() + " changed, "
                        + o.nodes().retired() + " retired");
            } catch (RuntimeException e) {
                String why = reason(e);
                LOG.warn("Kubernetes sync of cluster {} failed; its last good state stays: {}", t.getCluster(), why);
                service.recordFailure(t.getCluster(), SOURCE, why);
                said.add(t.getCluster() + ": failed: " + why);
            }
        }
        return said;
    }

    private SyncOutcome sync(KubernetesApiTarget t) {
        if (t.getKubeconfig() == null) {
            throw new IllegalStateException("gpupool.sync.kubernetes." + t.getCluster() + ".kubeconfig is not set");
        }
        Path file = Path.of(t.getKubeconfig());
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read kubeconfig " + file + ": " + e.getMessage());
        }
        Config config = Config.fromKubeconfig(t.getContext(), text, file.toString());
        // One retry, not fabric8's ten with backoff: the next scheduled sync is the retry that matters.
        config.setRequestRetryBackoffLimit(1);
        JsonNode nodes;
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config)
                .withHttpClientFactory(new JdkHttpClientFactory()).build()) {
            NodeList list = client.nodes().list();
            nodes = JSON.readTree(client.getKubernetesSerialization().asJson(list));
        } catch (IOException e) {
            throw new IllegalStateException("the API server's NodeList could not be read: " + e.getMessage());
        }
        ClusterImport doc;
        try {
            ClusterImport read = importer.kubernetes().read(nodes, clock.instant());
            doc = new ClusterImport(SOURCE, read.nodes(), read.skipped(), read.poolHints());
        } catch (ImportFormatException e) {
            throw new IllegalStateException(e.problems().size() + " problem(s) in the NodeList; first: " + e.problems().get(0));
        }
        return service.apply(t.getCluster(), t.getSite(), doc, false, "sync from " + config.getMasterUrl());
    }

    private static String reason(RuntimeException e) {
        if (e instanceof ProblemException p && !p.errors().isEmpty()) {
            return p.getMessage() + " (" + p.errors().get(0) + ")";
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return root == e || root.getMessage() == null ? message : message + ": " + root.getMessage();
    }
}
