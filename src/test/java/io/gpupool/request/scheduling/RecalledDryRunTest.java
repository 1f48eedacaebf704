package io.gpupool.request.scheduling;

import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.governance.ActivePolicy;
import io.gpupool.governance.PipelineDryRun;
import io.gpupool.lease.UsageRecorder;
import io.gpupool.policy.dryrun.PipelineRun;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.request.AllocationService;
import io.gpupool.request.NewRequest;
import io.gpupool.store.WorkingSet;
import io.gpupool.testing.Api;
import io.gpupool.testing.FleetLoaded;
import io.gpupool.testing.PolicyFiles;
import io.gpupool.testing.TestClock;
import io.micronaut.context.annotation.Property;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A dry-run's side given again ({@link PipelineDryRun#recallOrRun}) is the run a plain
 * {@link PipelineDryRun#run} makes on the same input, whatever happened in between: over seeded random
 * live fleets (requests placed and queued, usage samples, a moving clock), each step changes the fleet
 * at random or not, and the recalled run of the active policy and of a candidate must equal a fresh
 * one. An input is given again only while nothing a run reads changed.
 */
@MicronautTest(transactional = false)
// No live pass between the steps: the model changes only where a step changes it.
@Property(name = "gpupool.scheduler.react-to-commits", value = "false")
// A search budget no loaded machine spends: a run is then a function of its input (the budget is wall time).
@Property(name = "gpupool.preemption.pass-budget", value = "1h")
class RecalledDryRunTest {
    private static final Duration WINDOW = Duration.parse("PT" + UncommittedPipeline.SAME_INPUT_WITHIN);
    private static final Caller ADMIN = new Caller("test", "test", Role.ADMIN, null, null);

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    PipelineDryRun pipeline;
    @Inject
    AllocationService allocation;
    @Inject
    UsageRecorder usage;
    @Inject
    WorkingSet workingSet;
    @Inject
    ActivePolicy active;
    @Inject
    TestClock clock;

    private enum Step { NOTHING, CLOCK_WITHIN_THE_WINDOW, CLOCK_PAST_THE_WINDOW, SUBMISSION, IDLE_USAGE, OTHER_WHAT_IFS }

    @Test
    void aRunGivenAgainEqualsAFreshRunOnTheSameInputOverSeededRandomFleets() {
        FleetLoaded.ensure(new Api(client));
        clock.freezeAt(Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        CompiledPolicy candidate = new PolicyCompiler().compile(RuleSet.draft(PolicyFiles.staleAfterTwoMinutes())
                .withVersion("candidate")).orThrow();
        int recalled = 0;
        int inputsKept = 0;
        for (long seed = 1; seed <= 4; seed++) {
            Random random = new Random(seed);
            for (int i = 0; i < 12; i++) {
                submit(random);
            }
            List<GpuRequest> whatIf = List.of();
            PipelineDryRun.Input input = pipeline.live();
            PipelineRun activeRun = pipeline.recallOrRun(active.current().policy(), input, whatIf);
            PipelineRun candidateRun = pipeline.recallOrRun(candidate, input, whatIf);
            for (int s = 0; s < 10; s++) {
                Step step = Step.values()[random.nextInt(Step.values().length)];
                switch (step) {
                    case NOTHING -> { }
                    case CLOCK_WITHIN_THE_WINDOW -> clock.advance(Duration.ofSeconds(2));
                    case CLOCK_PAST_THE_WINDOW -> clock.advance(Duration.ofSeconds(30 + random.nextInt(300)));
                    case SUBMISSION -> submit(random);
                    case IDLE_USAGE -> idle(random);
                    case OTHER_WHAT_IFS -> whatIf = List.of(whatIf(random, input.now()));
                }
                // Given again only on the very model (a refused submission stores nothing), within the window, with the same usage.
                boolean sameInput = workingSet.current() == input.fleet() && step != Step.IDLE_USAGE
                        && Duration.between(input.now(), clock.instant()).compareTo(WINDOW) < 0;
                PipelineDryRun.Input next = pipeline.live();
                assertThat(next == input).as("seed %d step %d (%s): the input given again", seed, s, step).isEqualTo(sameInput);
                inputsKept += sameInput ? 1 : 0;
                input = next;
                PipelineRun activeAgain = pipeline.recallOrRun(active.current().policy(), input, whatIf);
                PipelineRun candidateAgain = pipeline.recallOrRun(candidate, input, whatIf);
                recalled += (activeAgain == activeRun ? 1 : 0) + (candidateAgain == candidateRun ? 1 : 0);
                assertSameRun(activeAgain, pipeline.run(active.current().policy(), input, whatIf), seed, s, step);
                assertSameRun(candidateAgain, pipeline.run(candidate, input, whatIf), seed, s, step);
                assertThat(candidateAgain).as("the candidate's run is not the active policy's").isNotSameAs(activeAgain);
                activeRun = activeAgain;
                candidateRun = candidateAgain;
            }
        }
        assertThat(inputsKept).as("inputs given again").isPositive();
        assertThat(recalled).as("runs given again").isPositive();
    }

    @Test
    void theSweepIsToldOnceAndIsTheRunsOwnWhetherTheRunIsMadeNowOrGivenAgain() {
        FleetLoaded.ensure(new Api(client));
        clock.freezeAt(Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        CompiledPolicy candidate = new PolicyCompiler().compile(RuleSet.draft(PolicyFiles.staleAfterTwoMinutes())
                .withVersion("told")).orThrow();
        submit(new Random(7));
        PipelineDryRun.Input input = pipeline.live();
        List<io.gpupool.policy.engine.Evaluation> told = new ArrayList<>();

        PipelineRun made = pipeline.recallOrRun(candidate, input, List.of(), told::add);
        assertThat(told).as("a run made now tells its sweep once").hasSize(1);
        assertThat(told.get(0)).as("the very sweep the run holds").isSameAs(made.sweep());

        told.clear();
        PipelineRun again = pipeline.recallOrRun(candidate, pipeline.live(), List.of(), told::add);
        assertThat(again).as("given again").isSameAs(made);
        assertThat(told).as("a run given again tells its sweep once").containsExactly(made.sweep());

        told.clear();
        clock.advance(WINDOW.plusSeconds(1)); // a new input: the run is made anew
        PipelineRun anew = pipeline.recallOrRun(candidate, pipeline.live(), List.of(), told::add);
        assertThat(anew).isNotSameAs(made);
        assertThat(told).as("a run made anew tells its own sweep once").containsExactly(anew.sweep());
    }

    private static void assertSameRun(PipelineRun given, PipelineRun fresh, long seed, int step, Step what) {
        String where = "seed " + seed + " step " + step + " (" + what + ")";
        assertThat(given.policyVersion()).as(where).isEqualTo(fresh.policyVersion());
        assertThat(given.from()).as(where).isEqualTo(fresh.from());
        assertThat(given.until()).as(where).isEqualTo(fresh.until());
        assertThat(given.requests()).as(where + ": requests").isEqualTo(fresh.requests());
        assertThat(given.leases()).as(where + ": leases").isEqualTo(fresh.leases());
        assertThat(given.totals()).as(where + ": totals").isEqualTo(fresh.totals());
        assertThat(given.sweep().decisions()).as(where + ": sweep").isEqualTo(fresh.sweep().decisions());
    }

    /** A random tenant's request: placed where it fits, queued where it does not. */
    private void submit(Random random) {
        List<String> tenants = workingSet.current().tenants().values().stream().map(Tenant::id).sorted().toList();
        WorkloadKind kind = WorkloadKind.values()[random.nextInt(WorkloadKind.values().length)];
        allocation.submit(new NewRequest(tenants.get(random.nextInt(tenants.size())), kind, 1 + random.nextInt(8), null, null,
                null, null, null, null, null, null, random.nextBoolean() ? "best-effort" : null, null, null, null), null, ADMIN);
    }

    /** A random lease reports 0 % for the last twenty minutes: idle by the default rules. */
    private void idle(Random random) {
        List<Lease> leases = new ArrayList<>(workingSet.current().leases().values());
        Lease lease = leases.get(random.nextInt(leases.size()));
        for (int m = 20; m >= 0; m -= 5) {
            usage.record(lease.id(), clock.instant().minusSeconds(m * 60L), 0.0);
        }
    }

    private GpuRequest whatIf(Random random, Instant now) {
        List<String> tenants = workingSet.current().tenants().values().stream().map(Tenant::id).sorted().toList();
        return new GpuRequest("what-if-" + random.nextInt(1000), tenants.get(random.nextInt(tenants.size())), null,
                WorkloadKind.TRAINING, 1 + random.nextInt(4), 1000, null, List.of(), 0, List.of(), 1, "ANY", false, null,
                null, true, 0, RequestState.QUEUED, 0, null, null, now, now);
    }
}
