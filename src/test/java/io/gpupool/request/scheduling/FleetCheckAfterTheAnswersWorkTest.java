package io.gpupool.request.scheduling;

import io.gpupool.domain.request.GpuRequest;
import io.gpupool.governance.CoherenceCheck;
import io.gpupool.governance.DryRunReport;
import io.gpupool.governance.DryRunRequest;
import io.gpupool.governance.PolicyDryRunService;
import io.gpupool.lease.UsageRecorder;
import io.gpupool.policy.dryrun.PipelineRun;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.request.coherence.GrantCoherence;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.WorkingSet;
import io.gpupool.testing.Api;
import io.gpupool.testing.FleetLoaded;
import io.gpupool.testing.PolicyFiles;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A dry-run starts the candidate's live-fleet check only once its own work is done (the candidate's
 * side and the diff), so the check does not take the second core from the answer's critical path;
 * and it still gives the check {@code fleet-check-wait} counted from when it could start (validation
 * passed, the active side done): a check done by then is in the answer, and an answer whose side ran
 * past that wait does not wait for the check at all.
 */
@MicronautTest(transactional = false)
@Property(name = "gpupool.scheduler.react-to-commits", value = "false")
@Property(name = "gpupool.policy.dry-run.fleet-check-wait", value = "3s")
@Property(name = FleetCheckAfterTheAnswersWorkTest.OBSERVED, value = "true")
class FleetCheckAfterTheAnswersWorkTest {
    static final String OBSERVED = "gpupool.test.fleet-check-after-the-answer";
    private static final String FINDING = "observed live-fleet check";

    @Inject
    @Client("/")
    HttpClient client;
    @Inject
    PolicyDryRunService service;
    @Inject
    ObservedPipeline pipeline;
    @Inject
    ObservedCheck check;

    @Test
    void theCheckStartsOnceTheCandidatesSideIsDoneAndIsInTheAnswerWhenDoneWithinTheWait() {
        FleetLoaded.ensure(new Api(client));
        pipeline.candidateSideMillis = 300;
        check.release = new CountDownLatch(0);

        DryRunReport answer = service.dryRun(new DryRunRequest(null, marked("first"), null, null), "test");

        assertThat(check.startedAt).as("the check ran").isPositive();
        assertThat(check.startedAt).as("the check started after the candidate's side ended")
                .isGreaterThan(pipeline.candidateSideEndedAt);
        assertThat(answer.candidateValidation().messages()).extracting(PolicyMessage::text).contains(FINDING);
    }

    @Test
    void anAnswerWhoseSideRanPastTheWaitDoesNotWaitForTheCheck() throws Exception {
        FleetLoaded.ensure(new Api(client));
        pipeline.candidateSideMillis = 3500; // past the 3 s the answer gives the check from when it could start
        check.release = new CountDownLatch(1); // a check that takes long, as at 10,000 GPUs
        try {
            DryRunReport answer = service.dryRun(new DryRunRequest(null, marked("second"), null, null), "test");
            long answered = System.nanoTime();

            assertThat(Duration.ofNanos(answered - pipeline.candidateSideEndedAt)).as("from the side's end to the answer")
                    .isLessThan(Duration.ofMillis(2500));
            assertThat(answer.safeToActivate()).isFalse();
            assertThat(answer.candidateValidation().messages()).extracting(PolicyMessage::text)
                    .anyMatch(t -> t.startsWith("The live-fleet check of this candidate is still running"))
                    .doesNotContain(FINDING);
        } finally {
            check.release.countDown();
        }
    }

    /** The candidate's rules with a comment that makes their content (so their live-fleet check) unique to {@code name}. */
    private static Map<String, String> marked(String name) {
        Map<String, String> files = new TreeMap<>(PolicyFiles.staleAfterTwoMinutes());
        String first = files.keySet().stream().filter(p -> p.endsWith(".drl")).findFirst().orElseThrow();
        files.put(first, files.get(first) + "\n// " + name + " " + System.nanoTime() + "\n");
        return files;
    }

    /** The pipeline, noting when the candidate's side ended (after a pause that makes its end easy to tell). */
    @Singleton
    @Replaces(UncommittedPipeline.class)
    @Requires(property = OBSERVED, value = "true")
    static class ObservedPipeline extends UncommittedPipeline {
        volatile long candidateSideMillis;
        volatile long candidateSideEndedAt;

        ObservedPipeline(PolicyEngine engine, WorkingSet workingSet, UsageRecorder usage,
                         io.gpupool.telemetry.DeviceTelemetry telemetry, QueuePass queuePass, Clock clock,
                         @Value("${gpupool.preemption.grace:30s}") Duration grace,
                         @Value("${gpupool.preemption.candidate-nodes:32}") int candidateNodes,
                         @Value("${gpupool.preemption.widen-every:30s}") Duration widenEvery,
                         @Value("${gpupool.policy.dry-run.same-input-within:" + SAME_INPUT_WITHIN + "}") Duration sameInputWithin) {
            super(engine, workingSet, usage, telemetry, queuePass, clock, grace, candidateNodes, widenEvery, sameInputWithin);
        }

        @Override
        public PipelineRun recallOrRun(CompiledPolicy policy, Input input, List<GpuRequest> whatIf,
                                       java.util.function.Consumer<io.gpupool.policy.engine.Evaluation> sweepDone) {
            PipelineRun run = super.recallOrRun(policy, input, whatIf, sweepDone);
            if ("candidate".equals(policy.version())) {
                try {
                    Thread.sleep(candidateSideMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                candidateSideEndedAt = System.nanoTime();
            }
            return run;
        }
    }

    /** A coherence check noting when it started, done once {@code release} lets it. */
    @Singleton
    @Replaces(GrantCoherence.class)
    @Requires(property = OBSERVED, value = "true")
    static class ObservedCheck implements CoherenceCheck {
        volatile long startedAt;
        volatile CountDownLatch release = new CountDownLatch(0);

        @Override
        public List<PolicyMessage> check(CompiledPolicy policy, PoolSnapshot fleet, Instant now) {
            startedAt = System.nanoTime();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return List.of(new PolicyMessage(PolicyMessage.Stage.COHERENCE, PolicyMessage.Severity.WARNING, null, 0, 0, FINDING));
        }
    }
}
