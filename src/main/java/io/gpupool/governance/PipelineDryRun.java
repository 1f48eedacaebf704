package io.gpupool.governance;

import io.gpupool.domain.lease.UsageSample;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.policy.dryrun.PipelineRun;
import io.gpupool.policy.engine.CompiledPolicy;
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

    /** What the live service would run on now: the published model, the usage its sweep uses, its clock. */
    Input live();

    PipelineRun run(CompiledPolicy policy, Input input, List<GpuRequest> whatIf);
}
