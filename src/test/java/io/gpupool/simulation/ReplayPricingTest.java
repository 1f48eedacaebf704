package io.gpupool.simulation;

import io.gpupool.accounting.AccountingSettings.IdlePayer;
import io.gpupool.accounting.PriceBook;
import io.gpupool.domain.inventory.ShareMode;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.request.scheduling.SimulatedScheduler;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.testing.Fleets;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.gpupool.simulation.ReplayFleet.T0;
import static io.gpupool.simulation.ReplayFleet.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A replay's cost by tenant is the live cost report's pricing of the run's leases: the rate per card
 * model and tier in force each hour, the borrowed rate for borrowed time, and idle reserved capacity
 * at its own rate charged to whoever the configuration names. Every figure below is worked out by hand.
 */
class ReplayPricingTest {
    /** Coarse passes and sweeps keep the test quick; arrivals and releases still run at their own instants. */
    private static final Simulation SIMULATION = new Simulation(DefaultPolicy.ENGINE, new SimulatedScheduler.Settings(
            Duration.ofSeconds(30), Duration.ofMinutes(10), Duration.ofMinutes(1), 32, Duration.ofSeconds(30),
            Duration.ofMillis(250)), Duration.ofMinutes(30));

    /**
     * The replay fleet's training pool (two 8×H100 nodes; vision and speech each guaranteed 8) and a
     * critical-reserved node of 8 H100s guaranteed to "products", which nobody uses.
     */
    private static PoolSnapshot fleetWithReservedNode() {
        PoolSnapshotBuilder b = ReplayFleet.twoH100Nodes().toBuilder();
        b.pool(new Pool("critical", "critical", PoolTier.CRITICAL_RESERVED, "pack", false, null));
        b.tenant(new Tenant("products", "products", null, null));
        b.quota(new Quota("products", "critical", Quota.ANY_MODEL, 8, 0, 0));
        Fleets.nodeOf(b, Fleets.node("fra-h100-03"), 8, gpu -> gpu.model("H100-SXM-80G").shareMode(ShareMode.EXCLUSIVE)
                .pool("critical").lastHeartbeat(T0));
        return b.build();
    }

    /**
     * Three hours: vision holds 4 GPUs for two hours, speech 8 for the first hour (its guarantee) and 4
     * more from 00:30 to 01:30 (beyond its guarantee: borrowed from vision's idle guarantee).
     */
    private static Workload threeHours() {
        return new Workload(List.of(
                job("vision-a", "vision", 4, Duration.ZERO).pool("training").runsFor(Duration.ofHours(2)).build(),
                job("speech-a", "speech", 8, Duration.ZERO).pool("training").runsFor(Duration.ofHours(1)).build(),
                job("speech-b", "speech", 4, Duration.ofMinutes(30)).pool("training").runsFor(Duration.ofHours(1)).build()),
                T0, T0.plus(Duration.ofHours(3)), "three hours");
    }

    /** H100 training time at 2.00 (borrowed 3.00) until 01:00, then 2.40 (3.60); reserved nodes 4.00, idle 1.00. */
    private static PriceBook.Prices prices() {
        return PriceFile.parse("prices.json", """
                [
                  {"model": "H100-SXM-80G", "tier": "TRAINING", "perGpuHour": 2.00, "borrowedPerGpuHour": 3.00,
                   "currency": "EUR", "effectiveFrom": "2026-03-01T00:00:00Z"},
                  {"model": "H100-SXM-80G", "tier": "TRAINING", "perGpuHour": 2.40, "borrowedPerGpuHour": 3.60,
                   "currency": "EUR", "effectiveFrom": "2026-03-02T01:00:00Z", "note": "mid-window change"},
                  {"model": "*", "tier": "CRITICAL_RESERVED", "perGpuHour": 4.00, "reservedIdlePerGpuHour": 1.00,
                   "currency": "EUR", "effectiveFrom": "2026-03-01T00:00:00Z"}
                ]
                """);
    }

    private static PolicyReplay.Result replay(PoolSnapshot fleet, CompiledPolicy... policies) {
        List<PolicyReplay.Candidate> candidates = new java.util.ArrayList<>();
        candidates.add(new PolicyReplay.Candidate("default", DefaultPolicy.POLICY));
        for (int i = 0; i < policies.length; i++) {
            candidates.add(new PolicyReplay.Candidate("candidate", policies[i]));
        }
        return PolicyReplay.run(SIMULATION, fleet, threeHours(), candidates, (run, runs, label, done) -> { }, () -> false);
    }

    private static Map<String, Double> costs(List<ReplayReport.SummaryRow> summary, String policy) {
        Map<String, Double> out = new TreeMap<>();
        summary.stream().filter(r -> r.policy().equals(policy) && r.metric().equals("cost_eur"))
                .forEach(r -> out.put(r.group(), r.value()));
        return out;
    }

    @Test
    void eachTenantPaysItsHoursAtTheRateInForceWithBorrowedTimeAtTheBorrowedRateAndIdleReservedCapacityChargedToItsGuaranteeHolder() {
        PolicyReplay.Result result = replay(fleetWithReservedNode());
        JobFate borrowed = result.baseline().fates().stream().filter(f -> f.id().equals("speech-b")).findFirst().orElseThrow();
        assertThat(borrowed.lease().borrowed()).as("speech's second lease is beyond its guarantee").isTrue();

        List<ReplayReport.SummaryRow> summary = ReplayReport.summary(result,
                new ReplayPricing(prices(), IdlePayer.GUARANTEE_HOLDERS));

        // vision: 4 GPUs × 1 h × 2.00 + 4 × 1 h × 2.40 = 17.60
        // speech: 8 × 1 h × 2.00 = 16.00, borrowed 4 × 0.5 h × 3.00 + 4 × 0.5 h × 3.60 = 13.20; 29.20
        // products: 8 idle reserved GPUs × 3 h × 1.00 = 24.00
        assertThat(costs(summary, "default")).containsExactlyInAnyOrderEntriesOf(Map.of(
                "all", 70.80, "tenant=vision", 17.60, "tenant=speech", 29.20, "tenant=products", 24.00));
        assertThat(summary).anySatisfy(r -> {
            assertThat(r.metric()).isEqualTo("unpriced_gpu_hours");
            assertThat(r.value()).isZero();
        });
    }

    @Test
    void idleReservedCapacityGoesToThePlatformWhenTheConfigurationSaysSoOrWhenNobodyUsedThePool() {
        PolicyReplay.Result result = replay(fleetWithReservedNode());
        for (IdlePayer payer : new IdlePayer[]{IdlePayer.PLATFORM, IdlePayer.USERS}) {
            Map<String, Double> costs = costs(ReplayReport.summary(result, new ReplayPricing(prices(), payer)), "default");
            assertThat(costs).as(payer.name()).containsEntry("tenant=(platform)", 24.00).doesNotContainKey("tenant=products")
                    .containsEntry("tenant=vision", 17.60).containsEntry("all", 70.80);
        }
    }

    @Test
    void timeNoRateCoversIsReportedAsUnpricedAndCostsNothing() {
        PriceBook.Prices onlyReserved = PriceFile.parse("prices.json", """
                [{"model": "*", "tier": "CRITICAL_RESERVED", "perGpuHour": 4.00, "reservedIdlePerGpuHour": 1.00,
                  "effectiveFrom": "2026-03-01T00:00:00Z"}]
                """);
        List<ReplayReport.SummaryRow> summary = ReplayReport.summary(replay(fleetWithReservedNode()),
                new ReplayPricing(onlyReserved, IdlePayer.GUARANTEE_HOLDERS));

        assertThat(costs(summary, "default")).containsExactlyInAnyOrderEntriesOf(Map.of("all", 24.00, "tenant=products", 24.00));
        // 4 × 2 h + 8 × 1 h + 4 × 1 h of training time has no rate
        assertThat(summary).filteredOn(r -> r.metric().equals("unpriced_gpu_hours"))
                .singleElement().satisfies(r -> assertThat(r.value()).isCloseTo(20.0, within(1e-9)));
    }

    @Test
    void aCandidateThatKeepsSpeechWithinItsGuaranteeShowsTheCostDeltaPerTenant() {
        Map<String, String> files = new HashMap<>(DefaultPolicy.RULE_SET.files());
        CompiledPolicy noBorrowing = new PolicyCompiler().compile(new RuleSet("candidate", files)).orThrow();
        PoolSnapshot fleet = fleetWithReservedNode();
        // the candidate runs on a fleet where speech may not borrow: its second job waits for the first to end
        PoolSnapshot noBorrow = fleet.toBuilder().quota(new Quota("speech", "training", Quota.ANY_MODEL, 8, 0, 8)).build();
        PolicyReplay.Result base = replay(fleet);
        PolicyReplay.Result other = PolicyReplay.run(SIMULATION, noBorrow, threeHours(),
                List.of(new PolicyReplay.Candidate("default", noBorrowing)), (run, runs, label, done) -> { }, () -> false);
        PolicyReplay.Result both = new PolicyReplay.Result(base.workload(), fleet, List.of(base.baseline(),
                new PolicyRun("no-borrowing", other.baseline().policyVersion(), other.baseline().fates(), other.baseline().samples(),
                        other.baseline().preemptions(), other.baseline().reclaimedGpuHours(), other.baseline().decisions())));

        List<ReplayReport.SummaryRow> summary = ReplayReport.summary(both, new ReplayPricing(prices(), IdlePayer.GUARANTEE_HOLDERS));

        JobFate waited = other.baseline().fates().stream().filter(f -> f.id().equals("speech-b")).findFirst().orElseThrow();
        assertThat(waited.placedAt()).isAfterOrEqualTo(T0.plus(Duration.ofHours(1)));
        assertThat(waited.lease().borrowed()).isFalse();
        // speech-b now runs 4 GPUs within guarantee from when speech-a ends (01:00 + at most a pass) for an hour at 2.40
        ReplayReport.SummaryRow speech = summary.stream().filter(r -> r.policy().equals("no-borrowing")
                && r.metric().equals("cost_eur") && r.group().equals("tenant=speech")).findFirst().orElseThrow();
        double startedAfterOne = java.time.Duration.between(T0.plus(Duration.ofHours(1)), waited.placedAt()).toMillis() / 3_600_000.0;
        assertThat(startedAfterOne).isLessThan(5.0 / 3600 + 1e-9); // within one scheduling interval
        assertThat(speech.value()).isCloseTo(25.60, within(1e-9));
        assertThat(speech.delta()).isCloseTo(16.00 + 9.60 - 29.20, within(1e-9));
    }
}
