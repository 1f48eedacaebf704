package io.gpupool.policy.fact;

import java.util.Collection;
import java.util.function.Predicate;

/**
 * A proof that a victim search names nobody, in two steps: a judgement of a pool's lease facts at one
 * evaluation second, whatever the request ({@link #judge}), which {@link SnapshotFacts#victimSearchProven}
 * keeps until a lease of that pool changes; then, per search, the proof itself on that judgement, the
 * request and which leases the search is handed ({@link #namesNobody}). The judgement is paid once per
 * pool state instead of once per search, and a search proven empty needs no facts of its own.
 *
 * @param <T> what the judgement keeps
 */
public interface LeaseProof<T> {
    /** What this proof keeps about {@code leases} (all of one pool's); null: nothing can be proven on them. */
    T judge(Collection<LeaseFact> leases);

    /** True only when a search handed {@code request} and the leases {@code asked} accepts names nobody. */
    boolean namesNobody(T judged, RequestFact request, Predicate<LeaseFact> asked);
}
