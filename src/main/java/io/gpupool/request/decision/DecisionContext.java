package io.gpupool.request.decision;

import io.gpupool.domain.request.GpuRequest;
import io.gpupool.request.backfill.Backfill;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Changes;

import java.time.Instant;

/**
 * What one decision about one request works with: the model it decides on ({@code before}), where
 * its changes go, the request, whether it is new (a submission) or a retry, the backfill
 * reservations it must keep off, the time, and whether the scheduling pass retrying it has spent
 * its whole-pool search budget ({@code widenHeld}, see {@code scheduling.PassBudget}), and whether
 * only a placement is wanted ({@code placementOnly}: a request that fits nowhere is not searched for
 * victims and waits as if none were found; a caller that reads nothing but placements, such as the
 * coherence check, is spared the searches, and a placement is decided exactly as without the flag,
 * since victims are sought only once nothing fits).
 */
public record DecisionContext(PoolSnapshot before, Changes changes, GpuRequest request, boolean isNew,
                              Backfill.Reservations reservations, Instant now, boolean widenHeld,
                              boolean placementOnly) {

    /** A request just submitted. */
    public static DecisionContext submission(PoolSnapshot before, Changes changes, GpuRequest request,
                                             Backfill.Reservations reservations, Instant now) {
        return new DecisionContext(before, changes, request, true, reservations, now, false, false);
    }

    /** A queued request decided again by a scheduling pass or a hand-over. */
    public static DecisionContext retry(PoolSnapshot before, Changes changes, GpuRequest queued,
                                        Backfill.Reservations reservations, Instant now, boolean widenHeld) {
        return new DecisionContext(before, changes, queued, false, reservations, now, widenHeld, false);
    }

    /** The same decision without a victim search: placed where it fits now, else left waiting. */
    public DecisionContext withoutVictimSearch() {
        return new DecisionContext(before, changes, request, isNew, reservations, now, widenHeld, true);
    }
}
