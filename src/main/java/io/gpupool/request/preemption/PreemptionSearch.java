package io.gpupool.request.preemption;

import io.gpupool.allocator.CapacityView;
import io.gpupool.request.input.Allocators;
import io.gpupool.request.input.Placements;
import io.gpupool.allocator.PlacementRequest;
import io.gpupool.allocator.PreemptionShortlist;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.policy.decision.PreemptionCandidate;
import io.gpupool.snapshot.PoolSnapshot;

import java.util.BitSet;
import java.util.List;
import java.util.Optional;

/**
 * Where preemption looks for victims at scale (allocation.md, "Preemption at scale"): first on a
 * shortlist of the nodes where the least must be freed and policy named victims before, then,
 * while the {@link WideningGate} allows, on pages four times larger, up to the whole pool. What
 * each search learned is kept in the {@link PreemptionMemory}, across attempts. Single writer only.
 */
public final class PreemptionSearch {
    private final Allocators allocators;
    private final int candidateNodes;
    /** What earlier searches learned (where policy named victims, and where it protected all), across attempts. */
    private final PreemptionMemory memory = new PreemptionMemory();
    /** Where each search ranks its nodes, one search at a time (single writer). */
    private final PreemptionShortlist.Scratch ranking = new PreemptionShortlist.Scratch();

    /**
     * {@code candidateNodes}: in a pool with more nodes than this (for a gang, or four per member if
     * more), victims are first sought only on that many nodes where the least must be freed
     * ({@link PreemptionShortlist}); if that yields no victim set and the {@link WideningGate}
     * allows, on four times as many, and so on up to every node; 0 = always every node.
     */
    public PreemptionSearch(Allocators allocators, int candidateNodes) {
        this.allocators = allocators;
        this.candidateNodes = candidateNodes;
    }

    /**
     * The fewest policy-ranked leases of {@code pool} whose GPUs, given back, let {@code request}
     * fit there; empty when none do (or the gate holds the wider search this attempt would need).
     */
    public Optional<List<PreemptionCandidate>> find(PoolSnapshot snapshot, CapacityView view, GpuRequest request, String pool,
                                             List<String> allowed, VictimSource victims, WideningGate gate,
                                             PreemptionMemory.RequestClass requestClass) {
        PlacementRequest placement = Placements.of(request, pool);
        // Only leases on cards the request could use can make room for it: policy sees no others.
        BitSet usable = allocators.forPool(snapshot.pool(pool).orElse(null)).usableGpus(view, placement);
        VictimSearch search = new VictimSearch(allocators, memory, snapshot, view, placement, pool, allowed, victims,
                requestClass, gate.now());
        memory.follow(snapshot, view);
        if (candidateNodes == 0 || !placement.needsGpu()) {
            return search.among(usable); // exact: every lease of every usable card, every time
        }
        // A gang needs room for every member: never fewer than four candidate nodes per member.
        int limit = placement.gangSize() > 1 ? Math.max(candidateNodes, 4 * placement.gangSize()) : candidateNodes;
        // Cumulative pages, four times larger each: first the nodes where policy named victims
        // before and the least must be freed, then more of them, and every node last only if no
        // page had a victim set (cards policy recently protected are left out throughout).
        boolean fresh = gate.fullSearchDue();
        PreemptionShortlist ranked = PreemptionShortlist.rank(view, placement, usable, memory::promisedMilli,
                memory.history(requestClass, gate.now(), gate.every(), fresh), ranking,
                memory.answers(requestClass, gate.now(), gate.every(), fresh));
        // Where policy named enough before, a quarter of the shortlist (at least one node) first.
        int known = Math.min(ranked.knownFreeable(), Math.max(1, limit / 4));
        for (int page = known > 0 ? known : limit; ; page = page < limit ? limit : page * 4) {
            BitSet shortlist = ranked.cheapest(page);
            if (shortlist == null) {
                break; // this page would hold every node: the whole pool below
            }
            if (page > limit && !widen(gate)) {
                return Optional.empty();
            }
            Optional<List<PreemptionCandidate>> found = search.among(shortlist);
            if (found.isPresent()) {
                return found;
            }
        }
        BitSet rest = ranked.all();
        // Past the shortlist only in a pool larger than it (a small pool is always searched whole).
        if (rest.isEmpty() || ranked.nodes() > limit && !widen(gate)) {
            return Optional.empty();
        }
        return search.among(rest);
    }

    /**
     * From now on, the questions the searches ask policy are also added to {@code questions}, in
     * order, as the {@link PreemptionMemory} notes them (null: stop).
     */
    public void record(List<PreemptionMemory.Asked> questions) {
        memory.record(questions);
    }

    /** Moves the memory to {@code snapshot}, as a search on it starts by doing. */
    public void follow(PoolSnapshot snapshot, CapacityView view) {
        memory.follow(snapshot, view);
    }

    /** What {@code requestClass}'s answers say policy named, as a stamp ({@link PreemptionMemory#namedStamp}). */
    public long namedStamp(PreemptionMemory.RequestClass requestClass) {
        return memory.namedStamp(requestClass);
    }

    /**
     * Whether each of these questions (each one that named nobody and taught the memory nothing),
     * asked again about the same cards of {@code view}, is proven to name nobody by {@code proof}
     * (given each question's pool and the asked cards' ids). Reads only.
     */
    public static boolean provenAgain(CapacityView view, List<PreemptionMemory.Asked> questions, ProvenEmpty proof) {
        for (PreemptionMemory.Asked question : questions) {
            if (!proof.namesNobody(question.allowed(), question.requestClass().pool(),
                    VictimSearch.devices(view, question.cards()))) {
                return false;
            }
        }
        return true;
    }

    /** Notes these questions again at {@code now}, as searches asking them again and named nobody would. */
    public void noteAgain(PoolSnapshot snapshot, CapacityView view, List<PreemptionMemory.Asked> questions,
                          java.time.Instant now) {
        memory.noteAgain(snapshot, view, questions, now);
    }

    /** Whether policy is proven to name nobody among the leases of a pool holding one of some cards. */
    @FunctionalInterface
    public interface ProvenEmpty {
        boolean namesNobody(List<String> allowed, String pool, java.util.Set<String> devices);
    }

    /** Rankings given again instead of made anew (tests). */
    public long rankingsReused() {
        return ranking.reused();
    }

    private static boolean widen(WideningGate gate) {
        if (!gate.mayWiden()) {
            return false;
        }
        gate.widened();
        return true;
    }

}
