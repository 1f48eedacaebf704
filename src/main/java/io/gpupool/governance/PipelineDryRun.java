package io.gpupool.governance;

import io.gpupool.domain.lease.UsageSample;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.policy.dryrun.PipelineRun;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.snapshot.PoolSnapshot;

import java.time.Instant;
import java.util.Collection;
import java.util.List;

/**
 * The allocation pipeline without the commit: the scheduling loop's steps (grace periods ending,
 * the reclamation sweep, the queue pass with backfill and preemption) and the submission of
 * what-if requests, run with a given policy on an uncommitted copy of a model. Declared here and
 * implemented where the pipeline lives ({@code request.scheduling}), because governance may not
 * depend on {@code request} (request depends on governance), as {@link CoherenceCheck}.
 */
public interface PipelineDryRun {
    /** A model to run on, the usage samples its sweep sees and the instant it starts at. */
    record Input(PoolSnapshot fleet, Collection<UsageSample> usage, Instant now) {
    }

    /**
     * What the live service would run on now: the published model, the usage its sweep uses, its clock.
     * The input given last is given again while the published model is the same object, its usage
     * samples are equal and the clock has moved less than a short while since its instant (as of
     * which a dry-run then answers): see the implementation.
     */
    Input live();

    PipelineRun run(CompiledPolicy policy, Input input, List<GpuRequest> whatIf);

    /**
     * Derives now what every run on {@code input} starts from, whatever its policy (the sweep's facts
     * of the model, the model's policy facts and capacity view), and keeps it for the runs on that
     * input while the returned value is held: a dry-run derives it beside the compilation of a new
     * candidate, whose side would otherwise derive it after (or derive it again, if it was dropped
     * since the active side's run). A run given the same derivation decides exactly as one that made its own.
     */
    Prepared prepare(Input input);

    /** What {@link #prepare} derived; only holding it matters. */
    interface Prepared {
    }

    /**
     * {@link #run}, or, on the input {@link #live} gave last, the run an earlier dry-run made there of
     * the same compiled rules under the same version label with equal what-if requests (and
     * anything else the run reads equal), given again: a dry-run's active side on an unchanged
     * fleet, and a candidate asked about again, are not run twice.
     */
    PipelineRun recallOrRun(CompiledPolicy policy, Input input, List<GpuRequest> whatIf);

    /**
     * {@link #recallOrRun}, telling {@code sweepDone} the run's sweep once, as soon as it is known: a run
     * made now tells it right after its sweep, before the queue passes (so a dry-run compares the two
     * sides' sweeps on another core while the candidate's passes run); a run given again, at once.
     */
    default PipelineRun recallOrRun(CompiledPolicy policy, Input input, List<GpuRequest> whatIf,
                                    java.util.function.Consumer<Evaluation> sweepDone) {
        PipelineRun run = recallOrRun(policy, input, whatIf);
        sweepDone.accept(run.sweep());
        return run;
    }
}
