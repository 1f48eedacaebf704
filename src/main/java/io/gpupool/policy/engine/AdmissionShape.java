package io.gpupool.policy.engine;

import io.gpupool.policy.fact.AncestorGuaranteeFact;
import io.gpupool.policy.fact.PoolFact;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.TenantFact;
import io.gpupool.policy.fact.TenantUsageFact;

import java.util.List;

/**
 * The shape of an admission's facts: a policy (the very instance), a request apart from its id, and
 * the rest of its admission facts in order. Requests of one shape get one evaluation, re-addressed
 * ({@link EvaluationMemo}); {@code requestId} (the request the shape was made for) is not part of it.
 */
final class AdmissionShape {
    private final CompiledPolicy policy;
    private final String requestId;
    private final RequestFact unnamed;
    private final List<Object> rest;
    private final int hash;

    private AdmissionShape(CompiledPolicy policy, String requestId, RequestFact unnamed, List<Object> rest) {
        this.policy = policy;
        this.requestId = requestId;
        this.unnamed = unnamed;
        this.rest = List.copyOf(rest);
        this.hash = (31 * System.identityHashCode(policy) + unnamed.hashCode()) * 31 + this.rest.hashCode();
    }

    /**
     * The shape of an admission's facts (null where it is not shared): the policy treats request ids
     * as names, and no fact but the request can name one (a pool fact does once placement failed
     * for a request in it: then {@code hasRoomFor} reads ids).
     */
    static AdmissionShape of(CompiledPolicy policy, List<Object> facts) {
        if (!policy.requestIdsAsNames() || facts.isEmpty() || !(facts.get(0) instanceof RequestFact request)) {
            return null;
        }
        for (int i = 1; i < facts.size(); i++) {
            Object fact = facts.get(i);
            boolean namesNoRequest = fact instanceof PoolFact pool ? pool.unplaceable().isEmpty()
                    : fact instanceof TenantFact || fact instanceof TenantUsageFact || fact instanceof AncestorGuaranteeFact;
            if (!namesNoRequest) {
                return null;
            }
        }
        return new AdmissionShape(policy, request.requestId(), request.withRequestId(""), facts.subList(1, facts.size()));
    }

    String requestId() {
        return requestId;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AdmissionShape s && s.policy == policy && s.hash == hash && s.unnamed.equals(unnamed)
                && s.rest.equals(rest);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
