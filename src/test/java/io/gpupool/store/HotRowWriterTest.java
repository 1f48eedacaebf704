package io.gpupool.store;

import io.gpupool.store.row.UsageSampleRepository;
import io.gpupool.store.row.GpuRequestRepository;
import io.gpupool.store.row.DecisionLogRepository;
import io.gpupool.store.row.UsageSampleRow;
import io.gpupool.store.row.DecisionLogRow;
import io.gpupool.testing.GpuRequests;
import io.gpupool.testing.Leases;
import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.inventory.Site;
import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.Notice;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.testing.DatabaseTest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rows a batch flushes in plain JDBC ({@link HotRowWriter}) read back, through the repositories,
 * exactly as they were written: every column, set and null, on H2 and on PostgreSQL. An update of a
 * row that is not in the database fails its write instead of being lost.
 */
@DatabaseTest
class HotRowWriterTest extends WriterHarnessTest {
    private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.MILLIS);

    @BeforeAll
    void start() {
        harness.freshWriter();
        harness.workingSet.write((before, changes) -> {
            changes.put(new Site("hot-site", "hot", "region"))
                    .put(new Cluster("hot-cluster", "hot-site", "hot", "InfiniBand"))
                    .put(new Node("hot-node", "hot-cluster", "hot-site", "r1", 64_000, 1 << 20, Map.of()));
            for (int i = 0; i < 2; i++) {
                changes.put(new Device("hot-node-gpu" + i, "GPU-hot-" + i, "hot-node", "hot-cluster", "hot-site", i, "H100",
                        81_920, null, 0, false, ShareMode.MIG, List.of(), DeviceHealth.HEALTHY, Map.of(), null, NOW));
            }
            changes.put(new Tenant("hot", "hot", null, null))
                    .put(new Pool("hot-pool", "hot-pool", PoolTier.TRAINING, "spread", true, null));
            return null;
        });
        harness.stopThreads();
    }

    @Test
    void everyColumnOfEveryHotRowReadsBackAsWrittenWhetherSetOrNull() throws Exception {
        WhyPending why = new WhyPending(BlockedBy.CAPACITY, "queue-when-full", "NO_CAPACITY", "no room",
                1, "hot-pool", NOW.plusSeconds(60), NOW.plusSeconds(30));
        GpuRequest full = GpuRequests.request("hot-full").tenant("hot").idempotencyKey("key-1").kind(WorkloadKind.TRAINING)
                .gpus(2).milliPerGpu(1000).migProfile("1g.10gb").models("H100", "A100").minMemoryMib(40_960).gangSize(2)
                .topology("same-node").topologyRequired(true).pool("hot-pool").priorityClass("high").preemptible(false)
                .ttlSeconds(3600).state(RequestState.PLACED).priority(7).leaseId("hot-lease-full").whyPending(why)
                .createdAt(NOW).updatedAt(NOW.plusMillis(5)).build();
        GpuRequest sparse = GpuRequests.request("hot-sparse").tenant("hot").kind(WorkloadKind.DEV).milliPerGpu(250)
                .at(NOW).build();
        Lease fullLease = Leases.lease("hot-lease-full").request("hot-full").tenant("hot").pool("hot-pool")
                .kind(WorkloadKind.TRAINING).priority(7).preemptible(false).borrowed(true).gang("gang-1")
                .state(LeaseState.PREEMPTING).whole("hot-node-gpu0").share("hot-node-gpu1", 250, "1g.10gb")
                .createdAt(NOW).expiresAt(NOW.plusSeconds(3600)).lastHeartbeat(NOW.plusSeconds(1))
                .deadline(NOW.plusSeconds(120))
                .notice(new Notice("hot-preemptor", List.of("Higher priority preempts lower", "second rule"), "v3",
                        "LOWER_PRIORITY")).priorityClass("production").lender("hot-lender").endedAt(NOW.plusSeconds(7200))
                .build();
        Lease sparseLease = Leases.lease("hot-lease-sparse").request("hot-sparse").tenant("hot").pool("hot-pool")
                .kind(WorkloadKind.DEV).createdAt(NOW).build();
        LoggedDecision admitted = LoggedDecision.of(DecisionAction.ADMIT, "hot-full", "hot-lease-full", "hot",
                List.of("admit-training"), "v3", "ADMITTED", "placed on hot-node");
        LoggedDecision unnamed = LoggedDecision.of(DecisionAction.QUEUE, null, null, null, List.of(), null, "TEST", "bare");
        DecisionLogRow decision = new DecisionLogRow(null, NOW, "ADMIT", "hot-full", "hot-lease-full", "hot",
                "[\"admit-training\"]", "v3", "ADMITTED", "placed on hot-node");
        DecisionLogRow bare = new DecisionLogRow(null, NOW, "QUEUE", null, null, null, "[]", null, "TEST", "bare");
        UsageSampleRow sample = new UsageSampleRow(null, "hot-lease-full", "hot-node-gpu0", NOW, 0.625, 12_288);

        List<CompletableFuture<String>> answers = harness.runAsOneBatch(List.of(
                (before, changes) -> {
                    changes.insert(full).insert(sparse).insert(fullLease).insert(sparseLease);
                    return "inserted";
                },
                (before, changes) -> {
                    changes.log(admitted, NOW).log(unnamed, NOW)
                            .recordUsage("hot-lease-full", "hot-node-gpu0", NOW, 0.625, 12_288);
                    return "appended";
                }));

        assertThat(answers.get(0).get(10, TimeUnit.SECONDS)).isEqualTo("inserted");
        assertThat(answers.get(1).get(10, TimeUnit.SECONDS)).isEqualTo("appended");
        GpuRequestRepository requests = harness.ctx.getBean(GpuRequestRepository.class);
        assertThat(requests.findById("hot-full").orElseThrow().toRequest()).isEqualTo(full);
        assertThat(requests.findById("hot-sparse").orElseThrow().toRequest()).isEqualTo(sparse);
        PoolStore store = harness.ctx.getBean(PoolStore.class);
        assertThat(harness.tx.executeRead(s -> store.findLease("hot-lease-full")).orElseThrow()).isEqualTo(fullLease);
        assertThat(harness.tx.executeRead(s -> store.findLease("hot-lease-sparse")).orElseThrow()).isEqualTo(sparseLease);
        DecisionLogRepository decisions = harness.ctx.getBean(DecisionLogRepository.class);
        assertThat(decisions.findByRequestIdOrderById("hot-full")).singleElement()
                .satisfies(row -> assertThat(row.id()).isNotNull())
                .usingRecursiveComparison().ignoringFields("id").isEqualTo(decision);
        assertThat(decisions.firstPageSince(NOW, Integer.MAX_VALUE)).filteredOn(r -> "bare".equals(r.message()))
                .singleElement().usingRecursiveComparison().ignoringFields("id").isEqualTo(bare);
        assertThat(harness.ctx.getBean(UsageSampleRepository.class).findByAtGreaterThanEquals(NOW))
                .filteredOn(r -> r.leaseId().equals("hot-lease-full")).singleElement()
                .usingRecursiveComparison().ignoringFields("id").isEqualTo(sample);
    }

    @Test
    void aFlushWithMoreParametersThanOnePreparedStatementTakesWritesThemAllInParts() {
        // 7,500 decisions × 9 columns = 67,500 parameters: over the 65,535 pgjdbc allows one prepared statement.
        int rows = 7_500;
        assertThat(rows * 9).isGreaterThan(65_535);
        harness.workingSet.write((before, changes) -> {
            for (int i = 0; i < rows; i++) {
                changes.log(LoggedDecision.of(DecisionAction.QUEUE, "hot-many", null, "hot", List.of(), "v1", "TEST",
                        "row " + i), NOW);
            }
            return null;
        });

        assertThat(harness.ctx.getBean(DecisionLogRepository.class).findByRequestIdOrderById("hot-many")).hasSize(rows);
    }

    @Test
    void updatedRowsReadBackWithEveryColumnAsUpdatedIncludingValuesSetBackToNull() throws Exception {
        WhyPending why = new WhyPending(BlockedBy.QUOTA, "over-quota", "OVER_QUOTA", "over", 0, "hot-pool", null, null);
        GpuRequest queued = GpuRequests.request("hot-updated").tenant("hot").idempotencyKey("key-u")
                .kind(WorkloadKind.INFERENCE).milliPerGpu(500).models("L40S").minMemoryMib(1024).pool("hot-pool")
                .priorityClass("high").ttlSeconds(60).priority(3).whyPending(why).at(NOW).build();
        Lease held = Leases.lease("hot-lease-updated").request("hot-updated").tenant("hot").pool("hot-pool")
                .kind(WorkloadKind.INFERENCE).priority(3).borrowed(true).gang("gang-u").share("hot-node-gpu1", 500)
                .createdAt(NOW).expiresAt(NOW.plusSeconds(60)).lastHeartbeat(NOW).build();
        harness.workingSet.write((before, changes) -> {
            changes.insert(queued).insert(held);
            return null;
        });
        GpuRequest placed = queued.with(RequestState.PLACED, 5, "hot-lease-updated", null, NOW.plusSeconds(2));
        Lease noticed = Leases.copyOf(held).priority(9).preemptible(false).borrowed(false).gang(null)
                .state(LeaseState.PREEMPTING).expiresAt(null).lastHeartbeat(NOW.plusSeconds(3)).deadline(NOW.plusSeconds(33))
                .build();

        List<CompletableFuture<String>> answers = harness.runAsOneBatch(List.of(
                (before, changes) -> {
                    changes.update(placed);
                    return "request";
                },
                (before, changes) -> {
                    changes.update(noticed);
                    return "lease";
                }));

        assertThat(answers.get(0).get(10, TimeUnit.SECONDS)).isEqualTo("request");
        assertThat(answers.get(1).get(10, TimeUnit.SECONDS)).isEqualTo("lease");
        assertThat(harness.ctx.getBean(GpuRequestRepository.class).findById("hot-updated").orElseThrow().toRequest())
                .isEqualTo(placed);
        PoolStore store = harness.ctx.getBean(PoolStore.class);
        assertThat(harness.tx.executeRead(s -> store.findLease("hot-lease-updated")).orElseThrow()).isEqualTo(noticed);
    }

    @Test
    void anUpdateOfALeaseTheDatabaseDoesNotHaveFailsItsWriteAndTheWritesBeforeItCommit() throws Exception {
        Lease ghost = Leases.lease("hot-ghost").request("nobody").tenant("hot").pool("hot-pool").kind(WorkloadKind.DEV)
                .state(LeaseState.RELEASED).createdAt(NOW).build();
        GpuRequest kept = GpuRequests.request("hot-kept").tenant("hot").kind(WorkloadKind.DEV).milliPerGpu(250).at(NOW)
                .build();

        List<CompletableFuture<String>> answers = harness.runAsOneBatch(List.of(
                (before, changes) -> {
                    changes.insert(kept);
                    return "kept";
                },
                (before, changes) -> {
                    changes.update(ghost); // an update, of a row no one inserted
                    return "updated";
                }));

        assertThat(answers.get(0).get(10, TimeUnit.SECONDS)).isEqualTo("kept");
        assertThat(WriterHarness.failureOf(answers.get(1))).hasMessageContaining("hot-ghost");
        assertThat(harness.ctx.getBean(GpuRequestRepository.class).existsById("hot-kept")).isTrue();
    }
}
