package io.gpupool.allocator;

import java.util.List;

/** A preemptible lease as the victim search sees it: its id and the capacity it would give back. */
public record VictimCandidate(String leaseId, List<HeldShare> shares) {
    public VictimCandidate {
        shares = List.copyOf(shares);
    }
}
