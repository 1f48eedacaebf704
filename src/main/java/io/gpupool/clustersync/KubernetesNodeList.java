package io.gpupool.clustersync;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.Health;
import io.gpupool.agent.NodeReport.MigInstance;
import io.gpupool.catalog.CardCatalog;
import io.gpupool.catalog.CardModel;
import io.gpupool.clustersync.ClusterImport.SkippedNode;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.problem.FieldChecks;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a Kubernetes NodeList ({@code kubectl get nodes -o json} or {@code -o yaml}; a single Node
 * too) into one report per GPU node. What a node has comes from NVIDIA GPU Feature Discovery's
 * labels ({@code nvidia.com/gpu.product}, {@code gpu.count}, {@code gpu.memory}, {@code gpu.family},
 * {@code gpu.machine}, {@code mig.strategy}, the {@code mig-<profile>.*} labels of the mixed
 * strategy, the {@code -MIG-<profile>} product of the single strategy) and from the device plugin's
 * {@code capacity}/{@code allocatable} of {@code nvidia.com/gpu} and {@code nvidia.com/mig-<profile>}.
 * Health: {@code Ready=False} is UNHEALTHY, {@code Ready=Unknown} UNKNOWN, a cordon or a
 * NoSchedule/NoExecute taint DRAINING, and GPUs the device plugin holds back from
 * {@code allocatable} (it withholds unhealthy ones) UNHEALTHY. Kubernetes does not publish GPU UUIDs,
 * so each card is named by its slot ({@code k8s:<node>/gpu<i>}); a node agent reporting the real
 * UUIDs later takes over the same slots. Nodes without GPUs are skipped and counted.
 * docs/inventory-sources.md lists the variants covered.
 */
public final class KubernetesNodeList {
    public static final String SOURCE = "k8s";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Pattern MIG_PRODUCT = Pattern.compile("(.+)-MIG-(\\d+g\\.\\d+gb(?:\\+me)?)", Pattern.CASE_INSENSITIVE);
    private static final Pattern MIG_LABEL = Pattern.compile("nvidia\\.com/mig-(\\d+g\\.\\d+gb(?:\\+me)?)\\.count");
    private static final Pattern MIG_RESOURCE = Pattern.compile("nvidia\\.com/mig-(\\d+g\\.\\d+gb(?:\\+me)?)");
    /** GFD labels kept on the node, under the name after {@code nvidia.com/}. */
    private static final List<String> KEPT = List.of("gpu.family", "gpu.machine", "gpu.product", "mig.strategy",
            "gpu.sharing-strategy", "gpu.replicas", "vgpu.present", "vgpu.host-driver-version", "cuda.driver-version.full");

    private final KubernetesLabels config;

    public KubernetesNodeList(KubernetesLabels config) {
        this.config = config;
    }

    /** The document as {@code kubectl get nodes} prints it; JSON when it starts with '{', else YAML. */
    public ClusterImport parse(String text, Instant now) {
        return read(tree(text), now);
    }

    /** A NodeList already read (the API server's answer). */
    public ClusterImport read(JsonNode doc, Instant now) {
        List<String> problems = new ArrayList<>();
        List<JsonNode> items = new ArrayList<>();
        String kind = doc.path("kind").asText("");
        if (kind.equals("Node")) {
            items.add(doc);
        } else if (kind.equals("NodeList") || kind.equals("List") || kind.isEmpty() && doc.has("items")) {
            if (!doc.path("items").isArray()) {
                throw new ImportFormatException(List.of("items: a NodeList needs an items array"));
            }
            doc.path("items").forEach(items::add);
        } else {
            throw new ImportFormatException(List.of("kind: expected NodeList, List or Node (kubectl get nodes -o json), was '"
                    + FieldChecks.excerpt(kind) + "'"));
        }
        List<NodeReport> nodes = new ArrayList<>();
        List<SkippedNode> skipped = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            JsonNode item = items.get(i);
            String name = item.path("metadata").path("name").asText(null);
            String at = "items[" + i + "]" + (name == null ? "" : " (node " + FieldChecks.excerpt(name) + ")");
            if (!item.path("kind").asText("Node").equals("Node")) {
                skipped.add(new SkippedNode(name, "kind " + item.path("kind").asText() + " is not a Node"));
                continue;
            }
            if (name == null || name.isBlank()) {
                problems.add(at + ".metadata.name: is required");
                continue;
            }
            NodeValues r = new NodeValues(at, problems);
            NodeReport report = node(name, item, r, now);
            if (report == null) {
                if (r.clean()) {
                    skipped.add(new SkippedNode(name, "no GPU: no nvidia.com/gpu capacity and no GPU Feature Discovery count"));
                }
            } else {
                nodes.add(report);
            }
        }
        if (!problems.isEmpty()) {
            throw new ImportFormatException(problems);
        }
        return new ClusterImport(SOURCE, nodes, skipped, Map.of());
    }

    static JsonNode tree(String text) {
        if (text == null || text.isBlank()) {
            throw new ImportFormatException(List.of("document: is empty (kubectl get nodes -o json)"));
        }
        String start = text.stripLeading();
        boolean json = start.startsWith("{") || start.startsWith("[");
        try {
            JsonNode doc = (json ? JSON : YAML).readTree(text);
            if (doc == null || !doc.isObject()) {
                throw new ImportFormatException(List.of("document: expected a NodeList object"));
            }
            return doc;
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : "line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr() + ": ";
            String what = e.getOriginalMessage() == null ? "unreadable" : e.getOriginalMessage().split("\n")[0];
            throw new ImportFormatException(List.of(where + "not valid " + (json ? "JSON" : "YAML") + " ("
                    + FieldChecks.clip(what, 160) + ")"));
        }
    }

    private NodeReport node(String name, JsonNode item, NodeValues r, Instant now) {
        Map<String, String> labels = strings(item.path("metadata").path("labels"));
        JsonNode capacity = item.path("status").path("capacity");
        JsonNode allocatable = item.path("status").path("allocatable");
        String product = labels.get("nvidia.com/gpu.product");
        Long count = r.count("metadata.labels[\"nvidia.com/gpu.count\"]", labels.get("nvidia.com/gpu.count"));
        Long memory = r.mib("metadata.labels[\"nvidia.com/gpu.memory\"]", labels.get("nvidia.com/gpu.memory"));
        Long capGpu = r.count("status.capacity[\"nvidia.com/gpu\"]", text(capacity.get("nvidia.com/gpu")));
        Long allocGpu = r.count("status.allocatable[\"nvidia.com/gpu\"]", text(allocatable.get("nvidia.com/gpu")));
        Long replicasLabel = r.count("metadata.labels[\"nvidia.com/gpu.replicas\"]", labels.get("nvidia.com/gpu.replicas"));
        long replicas = replicasLabel == null || replicasLabel < 1 ? 1 : replicasLabel; // time-slicing: capacity = cards × replicas
        String strategy = labels.getOrDefault("nvidia.com/mig.strategy", "none");
        List<MigSlices.Kind> kinds = migKinds(labels, capacity, r);
        if (!r.clean()) {
            return null;
        }

        List<Gpu> gpus = new ArrayList<>();
        DeviceHealth nodeHealth = nodeHealth(item, r);
        Matcher single = product == null ? null : MIG_PRODUCT.matcher(product);
        if (single != null && single.matches()) {
            // MIG single strategy: gpu.product, gpu.count and gpu.memory describe the MIG devices.
            String base = single.group(1);
            String profile = single.group(2);
            long instances = count != null ? count : capGpu == null ? 0 : capGpu;
            int perCard = MigSlices.instancesPerCard(profile, base);
            int cards = (int) ((instances + perCard - 1) / perCard);
            for (int c = 0; c < cards; c++) {
                List<MigInstance> on = new ArrayList<>();
                for (long k = (long) c * perCard; k < Math.min(instances, (long) (c + 1) * perCard); k++) {
                    on.add(new MigInstance(null, profile.toLowerCase(java.util.Locale.ROOT), memory, null, null));
                }
                gpus.add(gpu(name, c, base, cardMemory(base), true, on, nodeHealth));
            }
        } else {
            long cards;
            if (count != null) {
                cards = count;
            } else {
                long full = capGpu == null ? 0 : capGpu / replicas;
                cards = full + MigSlices.cardsNeeded(kinds, product);
            }
            int migCards = 0;
            if (!kinds.isEmpty()) {
                int needed = MigSlices.cardsNeeded(kinds, product);
                migCards = capGpu != null && "mixed".equals(strategy) ? (int) Math.max(needed, cards - capGpu / replicas) : needed;
                if (migCards > cards) {
                    r.problem("metadata.labels: the MIG instances (" + describe(kinds) + ") need " + migCards
                            + " card(s), the node has " + cards);
                    return null;
                }
            }
            List<List<MigInstance>> spread = MigSlices.spread(kinds, migCards, product);
            long unhealthy = 0;
            if (capGpu != null && allocGpu != null) {
                if (allocGpu > capGpu) {
                    r.problem("status.allocatable[\"nvidia.com/gpu\"]: " + allocGpu + " is more than the capacity " + capGpu);
                    return null;
                }
                unhealthy = (capGpu - allocGpu + replicas - 1) / replicas; // the device plugin withholds unhealthy cards
            }
            for (int c = 0; c < cards; c++) {
                boolean mig = c < migCards;
                DeviceHealth h = !mig && c >= cards - unhealthy ? worse(nodeHealth, DeviceHealth.UNHEALTHY) : nodeHealth;
                gpus.add(gpu(name, c, product, memory, mig, mig ? spread.get(c) : List.of(), h));
            }
        }
        if (gpus.isEmpty()) {
            return null;
        }
        return new NodeReport(name, null, null, rack(labels), nodeLabels(labels, item), 1L, now, null, SOURCE,
                driver(labels), labels.get("nvidia.com/cuda.runtime-version.full"), gpus);
    }

    private Gpu gpu(String node, int index, String product, Long memoryMib, boolean mig, List<MigInstance> instances,
                    DeviceHealth health) {
        Long memory = memoryMib != null || product == null ? memoryMib : cardMemory(product); // no gpu.memory label
        return new Gpu(index, "k8s:" + node + "/gpu" + index, null, product, null, memory, mig, instances, null,
                health == DeviceHealth.HEALTHY ? null : Health.stated(health.name()), null);
    }

    /** The full card's memory when the source gives only a MIG device's: the catalog's, if it knows the card. */
    private static Long cardMemory(String product) {
        CardModel m = CardCatalog.active().resolve(product);
        return m.known() ? m.memoryGib() * 1024L : null;
    }

    private static List<MigSlices.Kind> migKinds(Map<String, String> labels, JsonNode capacity, NodeValues r) {
        List<MigSlices.Kind> kinds = new ArrayList<>();
        for (Map.Entry<String, String> e : new TreeMap<>(labels).entrySet()) {
            Matcher m = MIG_LABEL.matcher(e.getKey());
            if (m.matches()) {
                Long n = r.count("metadata.labels[\"" + e.getKey() + "\"]", e.getValue());
                Long mem = r.mib("metadata.labels[\"nvidia.com/mig-" + m.group(1) + ".memory\"]",
                        labels.get("nvidia.com/mig-" + m.group(1) + ".memory"));
                if (n != null && n > 0) {
                    kinds.add(new MigSlices.Kind(m.group(1), n.intValue(), mem));
                }
            }
        }
        if (kinds.isEmpty()) {
            // The device plugin alone (no GFD): nvidia.com/mig-<profile> resources in the capacity.
            var names = capacity.fieldNames();
            List<String> sorted = new ArrayList<>();
            names.forEachRemaining(sorted::add);
            sorted.sort(null);
            for (String key : sorted) {
                Matcher m = MIG_RESOURCE.matcher(key);
                if (m.matches()) {
                    Long n = r.count("status.capacity[\"" + key + "\"]", text(capacity.get(key)));
                    if (n != null && n > 0) {
                        kinds.add(new MigSlices.Kind(m.group(1), n.intValue(), null));
                    }
                }
            }
        }
        return kinds;
    }

    private DeviceHealth nodeHealth(JsonNode item, NodeValues r) {
        DeviceHealth h = DeviceHealth.HEALTHY;
        for (JsonNode c : item.path("status").path("conditions")) {
            if ("Ready".equals(c.path("type").asText())) {
                String status = c.path("status").asText();
                if (status.equals("False")) {
                    h = worse(h, DeviceHealth.UNHEALTHY);
                } else if (status.equals("Unknown")) {
                    h = worse(h, DeviceHealth.UNKNOWN);
                }
            }
        }
        if (!drainReasons(item).isEmpty()) {
            h = worse(h, DeviceHealth.DRAINING);
        }
        return h;
    }

    /** Why no new pod may land on the node: a cordon, NoSchedule/NoExecute taints that are not ignored. */
    private List<String> drainReasons(JsonNode item) {
        List<String> reasons = new ArrayList<>();
        if (item.path("spec").path("unschedulable").asBoolean(false)) {
            reasons.add("cordoned");
        }
        for (JsonNode t : item.path("spec").path("taints")) {
            String effect = t.path("effect").asText();
            String key = t.path("key").asText();
            if ((effect.equals("NoSchedule") || effect.equals("NoExecute")) && !config.ignoredTaints().contains(key)
                    && !key.equals("node.kubernetes.io/unschedulable")) { // the cordon's own taint, said above
                reasons.add(key + ":" + effect);
            }
        }
        return reasons;
    }

    private Map<String, String> nodeLabels(Map<String, String> labels, JsonNode item) {
        Map<String, String> out = new LinkedHashMap<>();
        config.topology().forEach((ours, theirs) -> {
            if (labels.containsKey(theirs)) {
                out.put(ours, labels.get(theirs));
            }
        });
        for (String k : KEPT) {
            String v = labels.get("nvidia.com/" + k);
            if (v != null && !v.isEmpty()) {
                out.put(k, v);
            }
        }
        List<String> drain = drainReasons(item);
        if (!drain.isEmpty()) {
            out.put("k8s.drain", String.join(",", drain));
        }
        return out;
    }

    private String rack(Map<String, String> labels) {
        return config.rack() == null ? null : labels.get(config.rack());
    }

    private static String driver(Map<String, String> labels) {
        String full = labels.get("nvidia.com/cuda.driver-version.full");
        if (full != null) {
            return full;
        }
        String major = labels.get("nvidia.com/cuda.driver.major");
        return major == null ? null : major + "." + labels.getOrDefault("nvidia.com/cuda.driver.minor", "0")
                + (labels.getOrDefault("nvidia.com/cuda.driver.rev", "").isEmpty() ? "" : "." + labels.get("nvidia.com/cuda.driver.rev"));
    }

    private static DeviceHealth worse(DeviceHealth a, DeviceHealth b) {
        return b.ordinal() > a.ordinal() ? b : a;
    }

    private static String describe(List<MigSlices.Kind> kinds) {
        List<String> s = new ArrayList<>();
        kinds.forEach(k -> s.add(k.count() + "×" + k.profile()));
        return String.join(", ", s);
    }

    private static Map<String, String> strings(JsonNode map) {
        Map<String, String> out = new LinkedHashMap<>();
        map.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().isNull() ? "" : e.getValue().asText()));
        return out;
    }

    private static String text(JsonNode n) {
        return n == null || n.isNull() ? null : n.asText();
    }
}
