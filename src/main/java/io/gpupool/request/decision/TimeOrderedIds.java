package io.gpupool.request.decision;

import com.github.f4b6a3.uuid.UuidCreator;

/**
 * Ids of new requests and leases: version 7 UUIDs (RFC 9562), a millisecond timestamp followed by
 * 74 bits from {@code SecureRandom}, so they stay unguessable while sorting in the order they were
 * drawn.
 *
 * <p>Why not random (version 4) ids: every table keyed or indexed by a request or lease id (the
 * request and lease keys, the lease shares, the decision log's and the ledger's lease columns) then
 * takes each new row at the right edge of its B-tree instead of on a random page, so the writer
 * dirties and logs a few hot pages rather than one page per row spread over the whole index. On the
 * REST lease path this is about 5 % of the CPU per call (docs/performance.md, "The ledger on the
 * lease path"). A side effect: where equal candidates are told apart by lease id (victim ranking),
 * the older lease now comes first, as in a replay, which names its leases in order.
 */
public final class TimeOrderedIds {
    private TimeOrderedIds() {
    }

    public static String next() {
        return UuidCreator.getTimeOrderedEpoch().toString();
    }
}
