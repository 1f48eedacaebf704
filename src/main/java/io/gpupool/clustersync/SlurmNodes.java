package io.gpupool.clustersync;

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
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code scontrol show node -o} (one node per line; the multi-line form without {@code -o}
 * too) into one report per node with GPUs. {@code Gres} gives the cards: {@code gpu:8} (untyped),
 * {@code gpu:a100:8(S:0-1)} (typed), and MIG instances under a type that holds the MIG profile
 * ({@code gpu:a100_3g.20gb:2}, as Slurm's GRES guide configures them), laid on cards the way
 * {@link MigSlices} lays them. {@code State} gives health: DOWN, FAIL and INVAL are UNHEALTHY,
 * a not-responding node ({@code *}) and UNKNOWN are UNKNOWN, DRAIN/DRAINING/DRAINED, MAINT,
 * REBOOT and power-down states are DRAINING. {@code AvailableFeatures} become node labels
 * ({@code nvlink=true}), {@code Partitions} a label and the pool hint (new GPUs join a pool
 * named like the node's first partition when one exists), {@code GresUsed} a label. Slurm does not
 * publish GPU UUIDs: each card is named by its slot ({@code slurm:<node>/gpu<i>}).
 */
public final class SlurmNodes {
    public static final String SOURCE = "slurm";
    /** Where a new key starts: whitespace, then {@code Key=} (values such as OS= or Reason= hold spaces). */
    private static final Pattern KEY = Pattern.compile("(?:^|\\s+)([A-Za-z][A-Za-z0-9_.]*)=");
    private static final Pattern GRES = Pattern.compile("([A-Za-z0-9_]+)(?::([^:(]+))?:([^:(]+)(\\(.*\\))?");
    private static final Pattern MIG_IN_TYPE = Pattern.compile("(?:(.*?)_)?(\\d+g\\.\\d+gb)", Pattern.CASE_INSENSITIVE);
    private static final Pattern WHOLE = Pattern.compile("[-+]?\\d+");
    private static final Set<String> UNHEALTHY = Set.of("DOWN", "FAIL", "FAILING", "INVAL");
    private static final Set<String> DRAINING = Set.of("DRAIN", "DRAINING", "DRAINED", "MAINT", "REBOOT_ISSUED",
            "REBOOT_REQUESTED", "POWER_DOWN", "POWERING_DOWN", "POWERED_DOWN", "RESERVED");

    private SlurmNodes() {
    }

    public static ClusterImport parse(String text, Instant now) {
        List<String> problems = new ArrayList<>();
        List<NodeReport> nodes = new ArrayList<>();
        List<SkippedNode> skipped = new ArrayList<>();
        Map<String, List<String>> hints = new LinkedHashMap<>();
        for (Record rec : records(text, problems)) {
            Map<String, String> f = fields(rec.text());
            String name = f.get("NodeName");
            String at = "line " + rec.line() + " (node " + FieldChecks.excerpt(name) + ")";
            int before = problems.size();
            List<Gres> gres = gres(at, f.getOrDefault("Gres", ""), problems);
            DeviceHealth health = health(f.get("State"));
            if (problems.size() > before) {
                continue;
            }
            List<Gpu> gpus = gpus(name, gres, health);
            if (gpus.isEmpty()) {
                skipped.add(new SkippedNode(name, "no GPU in Gres (" + FieldChecks.excerpt(f.getOrDefault("Gres", "(null)")) + ")"));
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            for (String feature : list(f.get("AvailableFeatures"))) {
                labels.put(feature, "true");
            }
            List<String> partitions = list(f.get("Partitions"));
            if (!partitions.isEmpty()) {
                labels.put("slurm.partitions", String.join(",", partitions));
                hints.put(name, partitions);
            }
            if (f.get("State") != null) {
                labels.put("slurm.state", f.get("State"));
            }
            String used = f.get("GresUsed");
            if (used != null && !used.isBlank() && !isNull(used)) {
                labels.put("slurm.gres-used", used);
            }
            nodes.add(new NodeReport(name, null, null, null, labels, 1L, now, null, SOURCE, null, null, gpus));
        }
        if (!problems.isEmpty()) {
            throw new ImportFormatException(problems);
        }
        return new ClusterImport(SOURCE, nodes, skipped, hints);
    }

    private record Record(int line, String text) {
    }

    private record Gres(String type, long count) {
    }

    private static List<Record> records(String text, List<String> problems) {
        List<Record> out = new ArrayList<>();
        String[] lines = text.split("\r?\n");
        StringBuilder current = null;
        int start = 0;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.isBlank()) {
                continue;
            }
            if (line.stripLeading().startsWith("NodeName=")) {
                if (current != null) {
                    out.add(new Record(start, current.toString()));
                }
                current = new StringBuilder(line.strip());
                start = i + 1;
            } else if (current != null && Character.isWhitespace(line.charAt(0))) {
                current.append(' ').append(line.strip()); // the multi-line form of scontrol show node
            } else {
                problems.add("line " + (i + 1) + ": expected a node (NodeName=…), was '" + FieldChecks.excerpt(line.strip()) + "'");
            }
        }
        if (current != null) {
            out.add(new Record(start, current.toString()));
        }
        if (out.isEmpty() && problems.isEmpty()) {
            problems.add("document: no node in it (scontrol show node -o)");
        }
        return out;
    }

    static Map<String, String> fields(String line) {
        Map<String, String> out = new LinkedHashMap<>();
        Matcher m = KEY.matcher(line);
        String key = null;
        int valueStart = 0;
        while (m.find()) {
            if (key != null) {
                out.put(key, line.substring(valueStart, m.start()).strip());
            }
            key = m.group(1);
            valueStart = m.end();
        }
        if (key != null) {
            out.put(key, line.substring(valueStart).strip());
        }
        return out;
    }

    private static List<Gres> gres(String at, String raw, List<String> problems) {
        List<Gres> out = new ArrayList<>();
        if (raw.isBlank() || isNull(raw)) {
            return out;
        }
        for (String entry : splitOutsideParens(raw)) {
            Matcher m = GRES.matcher(entry.strip());
            if (!m.matches()) {
                problems.add(at + ": Gres '" + FieldChecks.excerpt(entry) + "' is not name[:type]:count");
                continue;
            }
            if (!m.group(1).equals("gpu")) {
                continue; // mps, shard and other GRES are not cards
            }
            String count = m.group(3).strip();
            if (!WHOLE.matcher(count).matches()) {
                problems.add(at + ": Gres '" + FieldChecks.excerpt(entry) + "': " + (count.matches("\\d+[A-Za-z]+")
                        ? "unknown unit '" + count.replaceAll("\\d", "") + "' on a GPU count" : "the count is not a whole number"));
                continue;
            }
            long n = Long.parseLong(count);
            if (n < 0) {
                problems.add(at + ": Gres '" + FieldChecks.excerpt(entry) + "': a count must be >= 0, was " + n);
                continue;
            }
            out.add(new Gres(m.group(2), n));
        }
        return out;
    }

    private static List<Gpu> gpus(String node, List<Gres> gres, DeviceHealth health) {
        List<Gpu> gpus = new ArrayList<>();
        Map<String, List<MigSlices.Kind>> migByCard = new LinkedHashMap<>();
        for (Gres g : gres) {
            Matcher mig = g.type() == null ? null : MIG_IN_TYPE.matcher(g.type());
            if (mig != null && mig.matches()) {
                String profile = mig.group(2).toLowerCase(Locale.ROOT);
                String card = mig.group(1) == null ? "" : mig.group(1);
                migByCard.computeIfAbsent(card, k -> new ArrayList<>())
                        .add(new MigSlices.Kind(profile, (int) g.count(), profileMemoryMib(profile)));
                continue;
            }
            String product = product(g.type());
            for (long i = 0; i < g.count(); i++) {
                gpus.add(gpu(node, gpus.size(), product, memoryOf(product), false, List.of(), health));
            }
        }
        for (Map.Entry<String, List<MigSlices.Kind>> e : migByCard.entrySet()) {
            String product = product(e.getKey().isEmpty() ? null : e.getKey());
            int cards = MigSlices.cardsNeeded(e.getValue(), product);
            for (List<MigInstance> on : MigSlices.spread(e.getValue(), cards, product)) {
                gpus.add(gpu(node, gpus.size(), product, memoryOf(product), true, on, health));
            }
        }
        return gpus;
    }

    private static Gpu gpu(String node, int index, String product, Long memoryMib, boolean mig, List<MigInstance> on,
                           DeviceHealth health) {
        return new Gpu(index, "slurm:" + node + "/gpu" + index, null, product, null, memoryMib, mig, on, null,
                health == DeviceHealth.HEALTHY ? null : Health.stated(health.name()), null);
    }

    /** A GRES type as a product name the catalog reads: {@code nvidia_a100-sxm4-80gb} → "nvidia a100-sxm4-80gb". */
    private static String product(String type) {
        return type == null ? null : type.replace('_', ' ');
    }

    private static Long memoryOf(String product) {
        if (product == null) {
            return null;
        }
        CardModel m = CardCatalog.active().resolve(product);
        return m.known() ? m.memoryGib() * 1024L : null;
    }

    private static Long profileMemoryMib(String profile) {
        Matcher m = Pattern.compile("\\d+g\\.(\\d+)gb").matcher(profile);
        return m.find() ? Long.parseLong(m.group(1)) * 1024 : null;
    }

    /** {@code IDLE+DRAIN}, {@code DOWN*}, {@code MIXED}: the worst health any of its parts says. */
    static DeviceHealth health(String state) {
        if (state == null || state.isBlank()) {
            return DeviceHealth.HEALTHY;
        }
        DeviceHealth h = DeviceHealth.HEALTHY;
        String s = state.toUpperCase(Locale.ROOT);
        if (s.contains("*")) {
            h = DeviceHealth.UNKNOWN; // not responding
        }
        for (String part : s.replace("*", "").split("\\+")) {
            DeviceHealth p = UNHEALTHY.contains(part) ? DeviceHealth.UNHEALTHY : DRAINING.contains(part) ? DeviceHealth.DRAINING
                    : part.equals("UNKNOWN") ? DeviceHealth.UNKNOWN : DeviceHealth.HEALTHY;
            if (p.ordinal() > h.ordinal()) {
                h = p;
            }
        }
        return h;
    }

    private static List<String> splitOutsideParens(String raw) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth = Math.max(0, depth - 1);
            } else if (c == ',' && depth == 0) {
                out.add(raw.substring(start, i));
                start = i + 1;
            }
        }
        out.add(raw.substring(start));
        return out;
    }

    private static List<String> list(String raw) {
        List<String> out = new ArrayList<>();
        if (raw == null || isNull(raw)) {
            return out;
        }
        for (String s : raw.split(",")) {
            if (!s.isBlank()) {
                out.add(s.strip());
            }
        }
        return out;
    }

    private static boolean isNull(String v) {
        return v.equals("(null)") || v.equalsIgnoreCase("N/A") || v.equals("none");
    }
}
