package io.gpupool.simulation;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.gpupool.accounting.AccountingSettings.IdlePayer;
import io.gpupool.accounting.PriceBook;
import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceProfile;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.Site;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.policy.engine.EvaluationLimits;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.request.scheduling.SimulatedScheduler;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A replay job's directory, the hand-over between the service and the child process that runs the
 * job (docs/policy-replay.md, "How a job runs"): the service writes the prepared, checked inputs, the
 * child reads them, replays, and writes the result beside them.
 * <ul>
 *   <li>{@code fleet.json}: the fleet as the service holds it, record by record (agent-registered
 *       cards, leases held, requests queued: more than a fleet document can say);</li>
 *   <li>{@code workload.json}: the workload's requests as asked and its window (a recorded request
 *       keeps fields the generic CSV has no column for: MIG profile, labels, topology, approval);</li>
 *   <li>{@code policies/N/}: candidate N's rule files as a rule-set directory, compiled again by the
 *       child (a compiled rule base does not cross processes);</li>
 *   <li>{@code prices.json}: the price book's rates as {@code GET /api/v1/prices} answers them (a
 *       {@code gpupool simulate --prices} file), absent when unpriced;</li>
 *   <li>{@code settings.json}: the candidates' labels and versions, the scheduler's settings, the
 *       engine's limits, the sample interval, who pays for idle reserved capacity and the CPU share;</li>
 *   <li>{@code out/} and {@code result.json}: the result files and the summary rows, written by the
 *       child; {@code result.json} comes last, so its presence means the result is whole.</li>
 * </ul>
 * Records go through Jackson unchanged, so the child replays exactly what the service prepared.
 */
final class ReplayJobFiles {
    static final String OUT = "out";
    static final String RESULT = "result.json";
    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES); // derived getters (isApproved…) are written, not read

    /** Candidate N's label in the outputs and the version its decisions carry. */
    record PolicyEntry(String label, String version) {
    }

    record Settings(List<PolicyEntry> policies, SimulatedScheduler.Settings scheduler, Duration sampleEvery,
                    EvaluationLimits limits, IdlePayer idlePayer, double cpuShare, double machineBusy) {
    }

    /** Every record of a fleet, in the snapshot's own order. */
    record Fleet(long version, java.time.Instant takenAt, List<Site> sites, List<Cluster> clusters, List<Node> nodes,
                 List<Device> devices, List<DeviceProfile> profiles, List<Tenant> tenants, List<Pool> pools,
                 List<Quota> quotas, List<Lease> leases, List<GpuRequest> queued) {
        static Fleet of(PoolSnapshot s) {
            return new Fleet(s.version(), s.takenAt(), List.copyOf(s.sites().values()), List.copyOf(s.clusters().values()),
                    List.copyOf(s.nodes().values()), List.copyOf(s.devices().values()), List.copyOf(s.profiles().values()),
                    List.copyOf(s.tenants().values()), List.copyOf(s.pools().values()), List.copyOf(s.quotas().values()),
                    List.copyOf(s.leases().values()), List.copyOf(s.queued().values()));
        }

        PoolSnapshot snapshot() {
            PoolSnapshotBuilder b = PoolSnapshot.builder().version(version).takenAt(takenAt).sites(sites).clusters(clusters)
                    .nodes(nodes).devices(devices).profiles(profiles).tenants(tenants).pools(pools).quotas(quotas).leases(leases);
            queued.forEach(b::request);
            return b.build();
        }
    }

    /** What the child read back: the prepared replay, the engine's limits and its CPU share. */
    record Read(ReplayJobs.Prepared prepared, EvaluationLimits limits, double cpuShare, double machineBusy) {
    }

    private ReplayJobFiles() {
    }

    /** Writes {@code prepared} into the empty directory {@code dir}, for a child that runs at {@code cpuShare}. */
    static void write(Path dir, ReplayJobs.Prepared prepared, EvaluationLimits limits, double cpuShare, double machineBusy) {
        List<PolicyEntry> policies = new ArrayList<>();
        for (int i = 0; i < prepared.candidates().size(); i++) {
            PolicyReplay.Candidate c = prepared.candidates().get(i);
            RuleSet ruleSet = c.policy().ruleSet();
            policies.add(new PolicyEntry(c.label(), ruleSet.version()));
            Path root = dir.resolve("policies").resolve(Integer.toString(i)).normalize();
            ruleSet.files().forEach((name, text) -> {
                Path file = root.resolve(name).normalize();
                if (!file.startsWith(root)) { // layering checks upload paths; this keeps a job inside its directory regardless
                    throw new IllegalArgumentException("rule file path leaves its rule set: " + name);
                }
                text(file, text);
            });
        }
        ReplayPricing pricing = prepared.pricing();
        json(dir.resolve("settings.json"), new Settings(policies, prepared.settings(), prepared.sampleEvery(), limits,
                pricing.idlePayer(), cpuShare, machineBusy));
        json(dir.resolve("fleet.json"), Fleet.of(prepared.fleet()));
        json(dir.resolve("workload.json"), prepared.workload());
        if (pricing.priced()) {
            json(dir.resolve("prices.json"), pricing.prices().rates());
        }
    }

    /** The prepared replay in {@code dir}, its candidates compiled again from their rule files. */
    static Read read(Path dir) {
        Settings settings = json(dir.resolve("settings.json"), new TypeReference<>() { });
        List<PolicyReplay.Candidate> candidates = new ArrayList<>();
        for (int i = 0; i < settings.policies().size(); i++) {
            PolicyEntry p = settings.policies().get(i);
            candidates.add(RuleSetPolicies.compile(p.label(), new RuleSet(p.version(), files(dir.resolve("policies").resolve(Integer.toString(i))))));
        }
        Fleet fleet = json(dir.resolve("fleet.json"), new TypeReference<>() { });
        Workload workload = json(dir.resolve("workload.json"), new TypeReference<>() { });
        Path prices = dir.resolve("prices.json");
        ReplayPricing pricing = new ReplayPricing(Files.exists(prices)
                ? new PriceBook.Prices(json(prices, new TypeReference<List<PriceBook.Rate>>() { })) : null, settings.idlePayer());
        return new Read(new ReplayJobs.Prepared(fleet.snapshot(), workload, candidates, settings.scheduler(), settings.sampleEvery(),
                pricing), settings.limits(), settings.cpuShare(), settings.machineBusy());
    }

    /** Writes the result: the files under {@code out/}, then {@code result.json} naming them in order, with the summary. */
    static void writeResult(Path dir, ReplayJobs.Outcome outcome) throws IOException {
        ReplayOutput.write(dir.resolve(OUT), outcome.files());
        json(dir.resolve(RESULT), new Result(List.copyOf(outcome.files().keySet()), outcome.summary()));
    }

    /** The result the child wrote; empty when it wrote none (it failed or was stopped). */
    static java.util.Optional<ReplayJobs.Outcome> readResult(Path dir) {
        if (!Files.exists(dir.resolve(RESULT))) {
            return java.util.Optional.empty();
        }
        Result result = json(dir.resolve(RESULT), new TypeReference<>() { });
        Map<String, byte[]> files = new LinkedHashMap<>();
        for (String name : result.files()) {
            try {
                files.put(name, Files.readAllBytes(dir.resolve(OUT).resolve(name)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return java.util.Optional.of(new ReplayJobs.Outcome(files, result.summary()));
    }

    private record Result(List<String> files, List<ReplayReport.SummaryRow> summary) {
    }

    private static Map<String, String> files(Path root) {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                files.put(root.relativize(p).toString().replace('\\', '/'), Files.readString(p, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    private static void text(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void json(Path file, Object value) {
        try {
            JSON.writeValue(file.toFile(), value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static <T> T json(Path file, TypeReference<T> type) {
        try {
            return JSON.readValue(file.toFile(), type);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
