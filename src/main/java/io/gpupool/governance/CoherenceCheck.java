package io.gpupool.governance;

import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.snapshot.PoolSnapshot;

import java.time.Instant;
import java.util.List;

/**
 * Whether a policy keeps what it grants on a fleet: leases it would admit and then reclaim or
 * preempt with nothing else changed are COHERENCE errors, naming both rules. Declared here and
 * implemented where the request pipeline lives ({@code request.coherence}), because the check runs
 * that pipeline (admission, placement, reclamation sweep, preemption) without committing, and
 * governance may not depend on {@code request} (request depends on governance).
 */
public interface CoherenceCheck {
    List<PolicyMessage> check(CompiledPolicy policy, PoolSnapshot fleet, Instant now);
}
