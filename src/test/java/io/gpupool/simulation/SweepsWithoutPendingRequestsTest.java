package io.gpupool.simulation;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.engine.ReclaimRules;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.request.scheduling.SimulatedScheduler;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static io.gpupool.simulation.ReplayFleet.T0;
import static io.gpupool.simulation.ReplayFleet.job;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sweep leaves the pending requests out only where the compiled rules show that no reclaiming rule
 * reads them (ReclaimRules.readNoRequest), and the device facts only where none reads those either
 * (ReclaimRules.readNoDevice); the replay's unskipped baseline always inserts everything. A rule set
 * whose reclaiming rule does read a waiting request, or a device, must still see it: were those left
 * out there, its reclaim would never come, and the fates would differ from the baseline's.
 */
class SweepsWithoutPendingRequestsTest {
    private static final SimulatedScheduler.Settings SETTINGS = UnbudgetedSettings.DEFAULTS;
    private static final String READS_A_WAITING_REQUEST = """
            package io.gpupool.rules.reclamation;

            import io.gpupool.policy.fact.LeaseFact;
            import io.gpupool.policy.fact.RequestFact;
            global io.gpupool.policy.decision.Decisions decisions;

            rule "Another tenant's long lease is reclaimed while a vision request waits"
            when
                $r : RequestFact( tenantId == "vision" )
                $l : LeaseFact( tenantId != $r.tenantId, runtimeSeconds > 1800 )
            then
                decisions.reclaim($l, "IDLE", 5L, "WAITER", "a vision request waits");
            end
            """;

    private static final String READS_A_DEVICE = """
            package io.gpupool.rules.reclamation;

            import io.gpupool.policy.fact.DeviceFact;
            import io.gpupool.policy.fact.LeaseFact;
            global io.gpupool.policy.decision.Decisions decisions;

            rule "Speech's lease on a fully used card is reclaimed after half an hour"
            when
                $d : DeviceFact( usedMilli >= 1000 )
                $l : LeaseFact( tenantId == "speech", deviceIds contains $d.deviceId, runtimeSeconds > 1800 )
            then
                decisions.reclaim($l, "IDLE", 5L, "FULL_CARD", "speech holds a full card");
            end
            """;

    /** Both tenants fill the fleet with busy leases; a vision request then waits for GPUs. */
    private static final Workload WORKLOAD = new Workload(List.of(
            job("speech-busy", "speech", 8, Duration.ZERO).utilisation(0.9).runsFor(Duration.ofHours(4)).build(),
            job("vision-busy", "vision", 8, Duration.ofSeconds(13)).utilisation(0.9).runsFor(Duration.ofHours(4)).build(),
            job("vision-waits", "vision", 8, Duration.ofMinutes(10)).utilisation(0.9).runsFor(Duration.ofHours(1)).build(),
            job("speech-waits", "speech", 4, Duration.ofMinutes(15)).utilisation(0.9).runsFor(Duration.ofHours(1)).build()),
            T0, T0.plus(Duration.ofHours(5)), "waiting");

    @Test
    void theDefaultSweepWithoutTheQueueDecidesWhatTheSweepOverItDecides() {
        assertThat(ReclaimRules.readNoRequest(DefaultPolicy.POLICY)).isTrue();
        assertThat(ReclaimRules.readNoDevice(DefaultPolicy.POLICY)).isTrue();

        assertSameAsInsertingTheRequests(DefaultPolicy.POLICY);
    }

    @Test
    void aReclaimingRuleThatReadsADeviceStillSeesIt() {
        CompiledPolicy policy = withFile("for-full-cards.drl", READS_A_DEVICE);
        assertThat(ReclaimRules.readNoRequest(policy)).isTrue();
        assertThat(ReclaimRules.readNoDevice(policy)).isFalse();

        PolicyRun run = assertSameAsInsertingTheRequests(policy);

        // the rule did fire on a device fact, or this compares nothing
        Map<String, JobFate> fates = run.fates().stream().collect(Collectors.toMap(JobFate::id, Function.identity()));
        assertThat(fates.get("speech-busy").end()).isEqualTo(JobFate.End.RECLAIMED);
    }

    private static CompiledPolicy withFile(String name, String drl) {
        Map<String, String> files = new HashMap<>(DefaultPolicy.RULE_SET.files());
        String reclamation = files.keySet().stream().filter(k -> k.endsWith("reclamation.drl")).findFirst().orElseThrow();
        files.put(reclamation.replace("reclamation.drl", name), drl);
        return new PolicyCompiler().compile(new RuleSet("with-" + name, files)).orThrow();
    }

    @Test
    void aReclaimingRuleThatReadsAWaitingRequestStillSeesIt() {
        Map<String, String> files = new HashMap<>(DefaultPolicy.RULE_SET.files());
        String reclamation = files.keySet().stream().filter(k -> k.endsWith("reclamation.drl")).findFirst().orElseThrow();
        files.put(reclamation.replace("reclamation.drl", "for-waiting-requests.drl"), READS_A_WAITING_REQUEST);
        CompiledPolicy policy = new PolicyCompiler().compile(new RuleSet("waiting", files)).orThrow();
        assertThat(ReclaimRules.readNoRequest(policy)).isFalse();

        PolicyRun run = assertSameAsInsertingTheRequests(policy);

        // the rule did fire for the waiting request, or this compares nothing
        Map<String, JobFate> fates = run.fates().stream().collect(Collectors.toMap(JobFate::id, Function.identity()));
        assertThat(fates.get("speech-busy").end()).isEqualTo(JobFate.End.RECLAIMED);
        assertThat(fates.get("vision-waits").outcome()).isEqualTo(JobFate.Outcome.PLACED);
    }

    private static PolicyRun assertSameAsInsertingTheRequests(CompiledPolicy policy) {
        PolicyRun inserting = replay(policy, false);
        PolicyRun skipping = replay(policy, true);

        assertThat(skipping.fates()).usingRecursiveComparison().isEqualTo(inserting.fates());
        assertThat(skipping.samples()).isEqualTo(inserting.samples());
        assertThat(skipping.preemptions()).isEqualTo(inserting.preemptions());
        assertThat(skipping.reclaimedGpuHours()).isEqualTo(inserting.reclaimedGpuHours());
        assertThat(skipping.decisions()).isEqualTo(inserting.decisions());
        return skipping;
    }

    private static PolicyRun replay(CompiledPolicy policy, boolean skipUnchanged) {
        return new Simulation(DefaultPolicy.ENGINE, SETTINGS, Duration.ofMinutes(5), skipUnchanged).run(policy.version(),
                policy, ReplayFleet.twoH100Nodes(), WORKLOAD, Simulation.Progress.NONE, () -> false);
    }
}
