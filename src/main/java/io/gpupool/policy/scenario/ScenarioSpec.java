package io.gpupool.policy.scenario;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The YAML schema of a policy test, kept compact so a scenario reads like its title: a small pool
 * (nodes with GPUs, tenants, pools, quotas, leases with usage) and requests, then the decisions
 * expected and those that must be absent. Durations are ISO-8601 ({@code PT2H}); unknown keys are
 * an error so a typo cannot silently weaken a test. See docs/policy-authoring.md.
 */
public record ScenarioSpec(String name, String mode, Instant now, Given given, List<RequestSpec> requests,
                           List<Map<String, Object>> expect, List<Map<String, Object>> absent) {

    /** Admission runs each request on its own (the per-request path); sweep runs everything at once. */
    public boolean isAdmission() {
        return "admission".equalsIgnoreCase(mode);
    }

    public record Given(List<PoolSpec> pools, List<TenantSpec> tenants, List<QuotaSpec> quotas,
                        List<NodeSpec> nodes, List<LeaseSpec> leases) {
    }

    public record PoolSpec(String id, String tier, Boolean sharing) {
    }

    public record TenantSpec(String id, String parent) {
    }

    /** Whole GPUs, like {@link io.gpupool.domain.tenancy.Quota}; model defaults to "*"; lending defaults to guaranteed. */
    public record QuotaSpec(String tenant, String pool, String model, int guaranteed, int borrowingLimit,
                            Integer lendingLimit) {
    }

    /**
     * {@code gpus} identical cards named {@code <node>-gpu<i>}; nvlink puts them all in one NVLink
     * domain; {@code unhealthy} lists card indexes reported UNHEALTHY. {@code silentFor}: the node's
     * agent (reporting every 30 s) last reported that long ago and the node counts as stale, so its
     * other cards are UNKNOWN; without it no agent reports for the node.
     */
    public record NodeSpec(String id, String cluster, Map<String, String> labels, int gpus, String model,
                           Integer memoryGib, Boolean nvlink, Boolean rdma, String shareMode, List<String> mig,
                           String pool, List<Integer> unhealthy, Duration heartbeatAge, Duration silentFor) {
    }

    /**
     * A lease on the first cards of {@code node} with room for {@code milli} each, or on the card
     * indexes listed in {@code cards}. {@code runtime}
     * and {@code heartbeat} are ages, {@code ttl} the time left (negative: expired);
     * {@code utilisation} is the busy level and {@code idle} how long samples have been zero; they
     * are what the holder reported in its heartbeats, or with {@code measured: true} what the node's
     * agent measured on the lease's GPUs. {@code claimed}: heartbeat samples at that level besides.
     */
    public record LeaseSpec(String id, String tenant, String pool, String kind, String node, int gpus, List<Integer> cards,
                            Integer milli,
                            Integer priority, Boolean preemptible, Boolean borrowed, String gang, Duration runtime,
                            Duration heartbeat, Duration ttl, Double utilisation, Duration idle, Boolean measured,
                            Double claimed) {
    }

    public record RequestSpec(String id, String tenant, String kind, int gpus, Integer milli, String mig,
                              List<String> models, Integer minMemoryGib, Integer gang, String priorityClass,
                              Boolean preemptible, Duration ttl, String pool, Boolean approved) {
    }
}
