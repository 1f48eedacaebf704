package io.gpupool.request.scheduling;

import io.gpupool.governance.ActivePolicy;
import io.gpupool.governance.PipelineDryRun;
import io.gpupool.policy.dryrun.PipelineRun;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.ruleset.RuleSet;
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

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a dry-run derives beside a new candidate's compilation ({@link PipelineDryRun#prepare}) is
 * what that candidate's side then starts from, however long the compilation took and whatever the
 * collector did meanwhile, and a run that starts from it decides as a run that derived its own.
 */
@MicronautTest(transactional = false)
@Property(name = "gpupool.scheduler.react-to-commits", value = "false")
// A search budget no loaded machine spends: a run is then a function of its input (the budget is wall time).
@Property(name = "gpupool.preemption.pass-budget", value = "1h")
class PreparedDryRunInputTest {
    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    UncommittedPipeline pipeline;
    @Inject
    ActivePolicy active;
    @Inject
    TestClock clock;

    @Test
    void aCandidatesSideStartsFromWhatWasPreparedWhileItCompiledEvenAfterCollections() {
        PipelineDryRun.Input input = liveFleet();
        PipelineDryRun.Prepared prepared = pipeline.prepare(input);
        int made = pipeline.derivationsMade();
        collect();
        pipeline.run(candidate(), input, List.of());
        assertThat(pipeline.derivationsMade()).as("derivations made again for the candidate's side").isEqualTo(made);
        java.lang.ref.Reference.reachabilityFence(prepared);
    }

    @Test
    void whatNobodyHoldsIsDerivedAgainAfterACollection() {
        PipelineDryRun.Input input = liveFleet();
        pipeline.prepare(input); // dropped at once: only what a dry-run holds is kept
        int made = pipeline.derivationsMade();
        collect();
        pipeline.run(candidate(), input, List.of());
        assertThat(pipeline.derivationsMade()).as("the weakly kept derivations were dropped, so made again").isGreaterThan(made);
    }

    @Test
    void aRunFromAPreparedStartDecidesAsARunThatDerivedItsOwn() {
        PipelineDryRun.Input input = liveFleet();
        PipelineDryRun.Prepared prepared = pipeline.prepare(input);
        PipelineRun fromPrepared = pipeline.run(candidate(), input, List.of());
        java.lang.ref.Reference.reachabilityFence(prepared);
        // the same model, usage and instant in an input object never prepared: its sweep facts are its own
        PipelineRun ownStart = pipeline.run(candidate(), new PipelineDryRun.Input(input.fleet(), input.usage(), input.now()), List.of());
        assertThat(fromPrepared.requests()).isEqualTo(ownStart.requests());
        assertThat(fromPrepared.leases()).isEqualTo(ownStart.leases());
        assertThat(fromPrepared.totals()).isEqualTo(ownStart.totals());
        assertThat(fromPrepared.sweep().decisions()).isEqualTo(ownStart.sweep().decisions());
    }

    private PipelineDryRun.Input liveFleet() {
        FleetLoaded.ensure(new Api(client));
        clock.freezeAt(Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        return pipeline.live();
    }

    private static CompiledPolicy candidate() {
        return new PolicyCompiler().compile(RuleSet.draft(PolicyFiles.staleAfterTwoMinutes()).withVersion("candidate")).orThrow();
    }

    /** Full collections: weakly reachable derivations nobody holds are cleared. */
    private static void collect() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
    }
}
