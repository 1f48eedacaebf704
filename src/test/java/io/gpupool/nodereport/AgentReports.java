package io.gpupool.nodereport;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.gpupool.agent.DcgmScrape;
import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Capture;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NvidiaSmiCsv;
import io.gpupool.agent.NvidiaSmiXml;
import io.gpupool.catalog.CardCatalog;
import io.gpupool.testing.Api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/** Agent reports for tests: made from the shipped captures as {@code gpupool agent} makes them, and posted. */
public final class AgentReports {
    static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    private static final String H100 = "nvidia-smi-query-csv/nvidia_gpu_exporter__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt";
    private static final String H100_MIG = "nvidia-smi-query-csv/nvidia_gpu_exporter__linux-x86_64__nvidia-h100-mig__590.48.01.txt";

    private AgentReports() {
    }

    public static String read(String path) {
        try (InputStream in = AgentReports.class.getResourceAsStream("/inventory-samples/" + path)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The section of an nvidia_gpu_exporter capture whose banner title starts with {@code title}. */
    static String section(String path, String title) {
        String[] lines = read(path).split("\\R");
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].startsWith("# " + title)) {
                int start = i + 1;
                while (start < lines.length && lines[start].startsWith("#")) {
                    start++;
                }
                List<String> body = new ArrayList<>();
                for (int j = start; j < lines.length && !lines[j].startsWith("####"); j++) {
                    body.add(lines[j]);
                }
                return String.join("\n", body);
            }
        }
        throw new IllegalArgumentException(title);
    }

    public static Capture capture(String name) {
        CardCatalog c = CardCatalog.standard();
        return switch (name) {
            case "a100-mig-xml" -> NvidiaSmiXml.parse(read("nvidia-smi-xml/telegraf__a100-sxm4-v12.xml"), c);
            case "t4-xml" -> NvidiaSmiXml.parse(read("nvidia-smi-xml/telegraf__tesla-t4.xml"), c);
            case "dual-a5000-xml" -> NvidiaSmiXml.parse(read("nvidia-smi-xml/telegraf__dual_a5000-v13.xml"), c);
            case "h100-csv" -> NvidiaSmiCsv.parse(section(H100, "load :: query-gpu (csv"), c);
            case "h100-mig-csv" -> NvidiaSmiCsv.parse(section(H100_MIG, "load :: query-gpu (csv") + "\n"
                    + section(H100_MIG, "capabilities :: list (-L)"), c);
            case "dcgm" -> DcgmScrape.parse(read("dcgm-exporter-metrics/cloud-native-docs__dcgm-exporter-rst__a100-mig-scrape.prom"), c);
            default -> throw new IllegalArgumentException(name);
        };
    }

    public static NodeReport report(String node, String cluster, long sequence, Instant at, Capture capture) {
        return new NodeReport(node, cluster, null, "r1", Map.of(), sequence, at, 30, capture.source(),
                capture.driverVersion(), capture.cudaVersion(), capture.gpus());
    }

    /**
     * The report with UUIDs of its own ({@code <uuid>-<node>}): the collectors masked the H100
     * captures' UUIDs to one value, and several tests report the same capture for several nodes.
     */
    public static NodeReport ownUuids(NodeReport r) {
        return withGpus(r, gpus -> gpus.stream().map(g -> new Gpu(g.index(), g.uuid() + "-" + r.node(), g.pciBusId(),
                g.productName(), g.model(), g.memoryMib(), g.migEnabled(), g.migInstances(), g.nvlinkPeers(), g.health(),
                g.activity())).toList());
    }

    /** The report with its GPUs changed by {@code change}. */
    public static NodeReport withGpus(NodeReport r, UnaryOperator<List<Gpu>> change) {
        return new NodeReport(r.node(), r.cluster(), r.site(), r.rack(), r.labels(), r.sequence(), r.at(),
                r.intervalSeconds(), r.source(), r.driverVersion(), r.cudaVersion(), change.apply(new ArrayList<>(r.gpus())));
    }

    public static NodeReport at(NodeReport r, long sequence, Instant at) {
        return new NodeReport(r.node(), r.cluster(), r.site(), r.rack(), r.labels(), sequence, at,
                r.intervalSeconds(), r.source(), r.driverVersion(), r.cudaVersion(), r.gpus());
    }

    public static String json(Object report) {
        try {
            return JSON.writeValueAsString(report);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Api.Reply post(Api api, Object report, String token) {
        return api.postText("/api/v1/agent/reports", report instanceof String s ? s : json(report), "application/json", token);
    }

    /** An agent token bound to {@code nodes}; its secret. */
    public static String agentToken(Api api, String name, String... nodes) {
        Api.Reply r = api.post("/api/v1/tokens", Map.of("name", name, "role", "agent", "nodes", List.of(nodes)), Api.ADMIN);
        if (r.status() != 201) {
            throw new IllegalStateException("token not issued: " + r.body());
        }
        return r.body().get("secret").asText();
    }
}
