package io.gpupool.simulation;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.inventory.Site;
import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Alibaba GPU 2023 trace ({@code openb_pod_list_*.csv} on {@code openb_node_list_*.csv},
 * attribution in traces/alibaba-gpu-v2023/ATTRIBUTION.md) as a replay: the node list becomes one
 * shared elastic pool "openb", and each pod a request, by the rule documented in
 * docs/policy-replay.md ("The Alibaba trace"):
 * <ul>
 *   <li>tenant = the pod's {@code qos} in lower case ({@code ls}, {@code be}, {@code burstable},
 *       {@code guaranteed}); each tenant is guaranteed a share of the fleet in proportion to the GPUs
 *       its pods ask for, lends all of it and may borrow up to the whole fleet;</li>
 *   <li>priority class: Guaranteed → high, LS and Burstable → normal, BE → best-effort; kind
 *       INFERENCE (the trace is a serving and batch mix that shares cards);</li>
 *   <li>trace second {@code s} is {@link #EPOCH} + s; arrival = {@code creation_time}; a pod that was
 *       scheduled runs for {@code deletion_time − scheduled_time}; one never scheduled (Pending) is
 *       cancelled at {@code deletion_time}; pods asking for no GPU are left out.</li>
 * </ul>
 */
public final class AlibabaTrace {
    public static final Instant EPOCH = Instant.parse("2023-07-01T00:00:00Z");
    public static final String POOL = "openb";
    private static final List<String> POD_COLUMNS = List.of("name", "num_gpu", "gpu_milli", "gpu_spec", "qos",
            "creation_time", "deletion_time", "scheduled_time");
    private static final List<String> NODE_COLUMNS = List.of("sn", "cpu_milli", "memory_mib", "gpu", "model");
    private static final long MAX_SECONDS = 10L * 366 * 24 * 3600;

    /** The fleet the node list describes and the workload the pod list describes on it. */
    public record Replayable(PoolSnapshot fleet, Workload workload) {
    }

    private AlibabaTrace() {
    }

    public static Replayable load(String podsFile, String pods, String nodesFile, String nodes) {
        List<Pod> parsed = pods(podsFile, pods);
        if (parsed.isEmpty()) {
            throw new WorkloadInputException(podsFile, 0, null, "no pod asks for a GPU");
        }
        Map<String, Long> askedByTenant = new LinkedHashMap<>();
        parsed.forEach(p -> askedByTenant.merge(p.tenant, (long) p.gpus * p.milli, Long::sum));
        PoolSnapshot fleet = fleet(nodesFile, nodes, askedByTenant);
        List<Job> jobs = new ArrayList<>(parsed.size());
        Instant from = null;
        Instant to = null;
        for (Pod p : parsed) {
            jobs.add(p.job);
            from = from == null || p.job.arrival().isBefore(from) ? p.job.arrival() : from;
            to = to == null || p.deletion.isAfter(to) ? p.deletion : to;
        }
        return new Replayable(fleet, new Workload(jobs, from, to.plusSeconds(60), podsFile + ": " + jobs.size() + " GPU pods"));
    }

    private record Pod(Job job, String tenant, int gpus, int milli, Instant deletion) {
    }

    private static List<Pod> pods(String file, String text) {
        List<Pod> pods = new ArrayList<>();
        CsvRows.read(file, text, POD_COLUMNS, row -> {
            String name = row.text("name");
            int gpus = (int) row.number("num_gpu", 0, 64);
            int milli = (int) row.number("gpu_milli", 0, 1000);
            if (gpus == 0 || milli == 0) {
                return; // a CPU-only pod
            }
            String qos = row.text("qos").toLowerCase(Locale.ROOT);
            String priorityClass = switch (qos) {
                case "guaranteed" -> "high";
                case "ls", "burstable" -> "normal";
                case "be" -> "best-effort";
                default -> throw new WorkloadInputException(file, row.line(), "qos",
                        "one of LS, BE, Burstable, Guaranteed, was '" + CsvRows.excerpt(row.text("qos")) + "'");
            };
            Instant created = EPOCH.plusSeconds(row.number("creation_time", 0, MAX_SECONDS));
            Instant deleted = EPOCH.plusSeconds(row.number("deletion_time", 0, MAX_SECONDS));
            if (deleted.isBefore(created)) {
                throw new WorkloadInputException(file, row.line(), "deletion_time", "before creation_time");
            }
            Long scheduled = row.optionalNumber("scheduled_time", 0, MAX_SECONDS);
            String spec = row.optional("gpu_spec");
            List<String> models = spec == null ? List.of() : Arrays.stream(spec.split("\\|")).map(String::trim)
                    .filter(m -> !m.isEmpty()).toList();
            GpuRequest ask = new GpuRequest(name, qos, null, WorkloadKind.INFERENCE, gpus, gpus == 1 ? milli : 1000, null, models,
                    0, List.of(), 1, "ANY", false, POOL, priorityClass, true, 0, RequestState.QUEUED, 0, null, null, created, created);
            Duration runs = scheduled == null ? Duration.between(created, deleted)
                    : Duration.between(EPOCH.plusSeconds(scheduled), deleted);
            Job job = new Job(ask, created, runs.isNegative() ? Duration.ZERO : runs, null, Double.NaN,
                    scheduled == null ? deleted : null, file + ":" + row.line());
            pods.add(new Pod(job, qos, gpus, gpus == 1 ? milli : 1000, deleted));
        });
        return pods;
    }

    private static PoolSnapshot fleet(String file, String text, Map<String, Long> askedByTenant) {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(EPOCH);
        b.site(new Site("openb", "Alibaba openb trace", null));
        b.cluster(new Cluster("openb", "openb", "openb", null));
        b.pool(new Pool(POOL, "Alibaba openb GPU nodes", PoolTier.ELASTIC, "default", true, "From " + file));
        int[] total = {0};
        CsvRows.read(file, text, NODE_COLUMNS, row -> {
            String sn = row.text("sn");
            int gpus = (int) row.number("gpu", 0, 16);
            if (gpus == 0) {
                return;
            }
            String model = row.text("model");
            b.node(new Node(sn, "openb", "openb", null, row.number("cpu_milli", 0, Long.MAX_VALUE),
                    row.number("memory_mib", 0, Long.MAX_VALUE), Map.of(), null));
            for (int i = 0; i < gpus; i++) {
                b.device(new Device(sn + "-gpu" + i, "GPU-" + sn + "-" + i, sn, "openb", "openb", i, model, 0, null, 0, false,
                        ShareMode.TIME_SLICE, List.of(), DeviceHealth.HEALTHY, Map.of(), POOL, EPOCH));
            }
            total[0] += gpus;
        });
        if (total[0] == 0) {
            throw new WorkloadInputException(file, 0, null, "no node with a GPU");
        }
        long asked = askedByTenant.values().stream().mapToLong(Long::longValue).sum();
        for (Map.Entry<String, Long> tenant : askedByTenant.entrySet()) {
            int guaranteed = (int) Math.floor(total[0] * (tenant.getValue() / (double) asked));
            b.tenant(new Tenant(tenant.getKey(), tenant.getKey(), null, null));
            b.quota(new Quota(tenant.getKey(), POOL, Quota.ANY_MODEL, guaranteed, total[0], guaranteed));
        }
        return b.build();
    }
}
