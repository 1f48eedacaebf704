package io.gpupool.quota;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.gpupool.domain.tenancy.Quota;

import java.math.BigDecimal;
import java.util.Map;

/**
 * A quota as {@code GET /quotas} shows it: the stored fields; when its pool promises more GPUs
 * than it has, {@code overcommitted} (the model's commitment for a model quota when that model is
 * over-committed, else the pool's); and {@code lentGpus}, how many GPUs of the tenant's idle
 * guarantee other tenants' borrowed leases hold right now ({@link LentCapacity}: exact where the
 * lease names the lender, attributed in proportion to idle guarantees where it borrowed from the pool).
 */
public record QuotaView(String tenantId, String poolId, String model, int guaranteedGpus, int borrowingLimit,
                        int lendingLimit, @JsonInclude(JsonInclude.Include.NON_NULL) PoolCommitment overcommitted,
                        BigDecimal lentGpus) {
    /** A view lending nothing. */
    public QuotaView(String tenantId, String poolId, String model, int guaranteedGpus, int borrowingLimit,
                     int lendingLimit, PoolCommitment overcommitted) {
        this(tenantId, poolId, model, guaranteedGpus, borrowingLimit, lendingLimit, overcommitted, BigDecimal.valueOf(0, 3));
    }

    static QuotaView of(Quota q, Map<String, PoolCommitment> commitments) {
        return of(q, commitments, LentCapacity.NONE);
    }

    static QuotaView of(Quota q, Map<String, PoolCommitment> commitments, LentCapacity lent) {
        PoolCommitment overcommitted = null;
        for (String model : new String[]{q.model(), Quota.ANY_MODEL}) {
            PoolCommitment c = commitments.get(q.poolId() + "/" + model);
            if (overcommitted == null && c != null && c.exceedsPool()) {
                overcommitted = c;
            }
        }
        return new QuotaView(q.tenantId(), q.poolId(), q.model(), q.guaranteedGpus(), q.borrowingLimit(),
                q.lendingLimit(), overcommitted, BigDecimal.valueOf(lent.of(q), 3));
    }
}
