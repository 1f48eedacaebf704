package io.gpupool.nodereport;

import io.gpupool.agent.NodeReport;
import io.gpupool.agent.NodeReport.Activity;
import io.gpupool.agent.NodeReport.Gpu;
import io.gpupool.agent.NodeReport.MigInstance;
import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

/**
 * Checks a report before anything is applied, collecting every problem with its field path
 * ({@code gpus[1].memoryMib: must be > 0, was -5}): a report is applied whole or refused whole.
 */
final class ReportChecks {
    static final int MAX_GPUS = 16;
    static final int MAX_MIG_INSTANCES = 7;
    static final Duration MAX_SKEW = Duration.ofMinutes(5);

    private ReportChecks() {
    }

    static void check(NodeReport r, Instant now) {
        checked(r, now).throwIfAny("The report was not applied");
    }

    /** Every problem of {@code r}, with its field path; empty when it may be applied. */
    static java.util.List<String> errors(NodeReport r, Instant now) {
        return checked(r, now).errors();
    }

    private static FieldChecks checked(NodeReport r, Instant now) {
        FieldChecks check = new FieldChecks();
        check.identifier("node", r.node());
        if (r.sequence() == null || r.sequence() <= 0) {
            check.error("sequence: a positive number is required, was " + r.sequence());
        }
        if (r.at() == null) {
            check.error("at: the time the report was taken is required");
        } else if (r.at().isAfter(now.plus(MAX_SKEW))) {
            check.error("at: " + r.at() + " is in the future (server time " + now + ")");
        }
        if (r.intervalSeconds() != null) {
            check.range("intervalSeconds", r.intervalSeconds(), 1, 3600);
        }
        if (r.cluster() != null) {
            check.identifier("cluster", r.cluster());
        }
        if (r.site() != null) {
            check.identifier("site", r.site());
        }
        check.maxLength("rack", r.rack(), 128);
        check.maxLength("source", r.source(), 64);
        r.labels().forEach((k, v) -> {
            check.maxLength("labels." + FieldChecks.excerpt(k), k, 128);
            if (v == null) {
                check.error("labels." + FieldChecks.excerpt(k) + ": a value is required (\"\" for a label without one)");
            }
            check.maxLength("labels." + FieldChecks.excerpt(k), v, 256);
        });
        if (r.gpus().size() > MAX_GPUS) {
            check.error("gpus: at most " + MAX_GPUS + " per node, got " + r.gpus().size());
        }
        Set<String> uuids = new HashSet<>();
        Set<Integer> indexes = new HashSet<>();
        for (int i = 0; i < r.gpus().size(); i++) {
            Gpu g = r.gpus().get(i);
            String at = "gpus[" + i + "]";
            if (g == null) {
                check.error(at + ": is null");
                continue;
            }
            if (check.text(at + ".uuid", g.uuid()) && check.maxLength(at + ".uuid", g.uuid(), 128)
                    && !uuids.add(g.uuid())) {
                check.error(at + ".uuid: '" + FieldChecks.excerpt(g.uuid()) + "' is reported twice");
            }
            if (g.index() == null) {
                check.error(at + ".index: is required");
            } else if (check.range(at + ".index", g.index(), 0, MAX_GPUS - 1) && !indexes.add(g.index())) {
                check.error(at + ".index: " + g.index() + " is reported twice");
            }
            check.maxLength(at + ".productName", g.productName(), 128);
            check.maxLength(at + ".model", g.model(), 128);
            check.maxLength(at + ".pciBusId", g.pciBusId(), 64);
            for (int k = 0; k < g.nvlinkPeers().size(); k++) {
                if (g.nvlinkPeers().get(k) == null) {
                    check.error(at + ".nvlinkPeers[" + k + "]: is null");
                }
            }
            if (g.memoryMib() != null) {
                check.positive(at + ".memoryMib", g.memoryMib());
            }
            activity(check, at + ".activity", g.activity());
            if (g.health() != null && g.health().state() != null && java.util.Arrays.stream(
                    io.gpupool.domain.inventory.DeviceHealth.values()).noneMatch(h -> h.name().equals(g.health().state()))) {
                check.error(at + ".health.state: one of " + java.util.Arrays.toString(
                        io.gpupool.domain.inventory.DeviceHealth.values()) + ", was '" + FieldChecks.excerpt(g.health().state()) + "'");
            }
            if (g.migInstances().size() > MAX_MIG_INSTANCES) {
                check.error(at + ".migInstances: at most " + MAX_MIG_INSTANCES + ", got " + g.migInstances().size());
            }
            for (int k = 0; k < g.migInstances().size(); k++) {
                MigInstance m = g.migInstances().get(k);
                String mat = at + ".migInstances[" + k + "]";
                if (m == null) {
                    check.error(mat + ": is null");
                    continue;
                }
                check.maxLength(mat + ".profile", m.profile(), 32);
                if (m.profile() != null && !m.profile().matches("[A-Za-z0-9.+_-]+")) {
                    check.error(mat + ".profile: '" + FieldChecks.excerpt(m.profile()) + "' is not a MIG profile name");
                }
                if (m.profile() == null && m.memoryMib() == null) {
                    check.error(mat + ": needs a profile or memoryMib");
                }
                if (m.memoryMib() != null) {
                    check.positive(mat + ".memoryMib", m.memoryMib());
                }
                activity(check, mat + ".activity", m.activity());
            }
        }
        return check;
    }

    private static void activity(FieldChecks check, String at, Activity a) {
        if (a == null) {
            return;
        }
        fraction(check, at + ".value", a.value());
        fraction(check, at + ".graphicsActive", a.graphicsActive());
        fraction(check, at + ".smActive", a.smActive());
        fraction(check, at + ".gpuUtil", a.gpuUtil());
        if (a.framebufferUsedMib() != null) {
            check.nonNegative(at + ".framebufferUsedMib", a.framebufferUsedMib());
        }
        if (a.value() != null && !Set.of(Activity.GR_ENGINE_ACTIVE, Activity.SM_ACTIVE, Activity.GPU_UTIL).contains(a.metric())) {
            check.error(at + ".metric: one of GR_ENGINE_ACTIVE, SM_ACTIVE, GPU_UTIL for a value, was '"
                    + FieldChecks.excerpt(a.metric()) + "'");
        }
    }

    private static void fraction(FieldChecks check, String at, Double v) {
        if (v != null && (v.isNaN() || v < 0 || v > 1)) {
            check.error(at + ": a fraction 0..1, was " + v);
        }
    }

    static ProblemException unknownCluster(String cluster) {
        return ProblemException.unprocessable("The report was not applied: node is new and its cluster is unknown",
                java.util.List.of(cluster == null
                        ? "cluster: a node the service does not know needs its cluster (agent.cluster in the agent's config file)"
                        : "cluster: unknown cluster '" + FieldChecks.excerpt(cluster) + "'"));
    }
}
