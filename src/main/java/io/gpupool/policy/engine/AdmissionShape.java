package io.gpupool.policy.engine;

import io.gpupool.policy.fact.AncestorGuaranteeFact;
import io.gpupool.policy.fact.PoolFact;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.TenantFact;
import io.gpupool.policy.fact.TenantUsageFact;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

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
     * as names, and no fact but the request names one, or a pool names the request itself alone (a
     * victim search's pools, where placement failed for it: {@code canFitNow} reads ids). Such a
     * pool's name for the request is made anonymous as the request's own id is: the facts of two
     * requests then have one shape when renaming one's id to the other's turns one's facts into the
     * other's, and a policy that treats ids as names decides the same, re-addressed.
     */
    static AdmissionShape of(CompiledPolicy policy, List<Object> facts) {
        if (!policy.requestIdsAsNames() || facts.isEmpty() || !(facts.get(0) instanceof RequestFact request)) {
            return null;
        }
        List<Object> rest = facts.subList(1, facts.size());
        boolean copied = false;
        for (int i = 1; i < facts.size(); i++) {
            Object fact = facts.get(i);
            if (fact instanceof PoolFact pool && !pool.unplaceable().isEmpty()) {
                if (!pool.unplaceable().equals(Set.of(request.requestId()))) {
                    return null; // it names another request
                }
                if (!copied) {
                    rest = new ArrayList<>(rest);
                    copied = true;
                }
                rest.set(i - 1, pool.withUnplaceable(ANONYMOUS));
            } else if (!(fact instanceof PoolFact || fact instanceof TenantFact || fact instanceof TenantUsageFact
                    || fact instanceof AncestorGuaranteeFact)) {
                return null;
            }
        }
        return new AdmissionShape(policy, request.requestId(), request.withRequestId(""), rest);
    }

    /** What a pool naming the request alone names in a shape: the request's id made anonymous, as in {@code unnamed}. */
    private static final Set<String> ANONYMOUS = Set.of("");

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
