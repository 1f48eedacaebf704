package io.gpupool.allocator;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What one allocator found cannot be placed on one capacity view: request shapes whose plan failed
 * and why each does not fit. A scheduling pass retries hundreds of queued requests of a few shapes
 * on a view that only changes when one of them is placed or a lease ends; a shape that failed on
 * this very view fails again, and its explanation is the same. Valid because published views are
 * immutable (a placement or a release makes a new one, which empties the memo), a search's scratch
 * copy counts its in-place changes ({@link CapacityView#edits()}, which empties the memo too: victim
 * search gives candidates back on one scratch view and plans after each), and, on the allocator's
 * {@code plan}/{@code explain} path, the strategy's state never changes; the allocator forgets
 * the memo when its strategy observes a request and never keeps one for a strategy that draws
 * at random (a skipped plan would skip draws). Keys ignore the request's id: the allocator's
 * answer depends on the shape only. Single-threaded, like the allocator.
 */
final class NoFitMemo {
    /** A bound for the memory of one view; shapes per pass are few, so it is rarely reached. */
    static final int MAX_SHAPES = 4096;

    private CapacityView view;
    private int viewEdits;
    private final Set<PlacementRequest> failed = new HashSet<>();
    private final Map<PlacementRequest, NoFitReason> reasons = new HashMap<>();

    /** Whether a request of this shape already failed to plan on {@code on}. */
    boolean failedOn(CapacityView on, PlacementRequest request) {
        return on == view && on.edits() == viewEdits && failed.contains(shape(request));
    }

    void failed(CapacityView on, PlacementRequest request) {
        follow(on);
        failed.add(shape(request));
    }

    /** The explanation for this shape on {@code on}, computed once per view. */
    NoFitReason reason(CapacityView on, PlacementRequest request, Supplier<NoFitReason> explain) {
        follow(on);
        PlacementRequest shape = shape(request);
        NoFitReason known = reasons.get(shape);
        if (known == null) {
            known = explain.get();
            reasons.put(shape, known);
        }
        return known;
    }

    void forget() {
        view = null;
        viewEdits = 0;
        failed.clear();
        reasons.clear();
    }

    private void follow(CapacityView on) {
        if (on != view || on.edits() != viewEdits || failed.size() + reasons.size() >= MAX_SHAPES) {
            forget();
            view = on;
            viewEdits = on.edits();
        }
    }

    private static PlacementRequest shape(PlacementRequest r) {
        return r.id() == null ? r : new PlacementRequest(null, r.gangSize(), r.gpusPerMember(), r.milliPerGpu(),
                r.migProfile(), r.allowedModels(), r.excludedModels(), r.minGpuMemoryMib(), r.cpuMilli(), r.memoryMib(),
                r.topology(), r.pools(), r.requiredLabels());
    }
}
