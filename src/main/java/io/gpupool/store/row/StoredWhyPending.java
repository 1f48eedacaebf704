package io.gpupool.store.row;

import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.PoolReason;
import io.gpupool.domain.request.WhyPending;

import java.time.Instant;
import java.util.List;

/**
 * A request's why-pending as stored in {@code gpu_request.why_pending} (JSON): every field,
 * including {@code wideSearchAt}, which the API does not show. Its own type so the stored shape does
 * not follow the API's annotations. Rows written before {@code perPool} existed read with none.
 */
record StoredWhyPending(BlockedBy blockedBy, String ruleName, String reasonCode, String message, int largestFitNow,
                        String pool, Instant until, Instant wideSearchAt, List<PoolReason> perPool) {
    static StoredWhyPending of(WhyPending w) {
        return new StoredWhyPending(w.blockedBy(), w.ruleName(), w.reasonCode(), w.message(), w.largestFitNow(),
                w.pool(), w.until(), w.wideSearchAt(), w.perPool());
    }

    WhyPending toWhyPending() {
        return new WhyPending(blockedBy, ruleName, reasonCode, message, largestFitNow, pool, until, wideSearchAt, perPool);
    }
}
