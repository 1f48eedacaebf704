package io.gpupool.quota;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.gpupool.domain.tenancy.Quota;

import java.util.Map;

/**
 * A quota as {@code GET /quotas} shows it: the stored fields and, when its pool promises more GPUs
 * than it has, {@code overcommitted} (the model's commitment for a model quota when that model is
 * over-committed, else the pool's).
 */
public record QuotaView(String tenantId, String poolId, String model, int guaranteedGpus, int borrowingLimit,
                        int lendingLimit, @JsonInclude(JsonInclude.Include.NON_NULL) PoolCommitment overcommitted) {
    static QuotaView of(Quota q, Map<String, PoolCommitment> commitments) {
        PoolCommitment overcommitted = null;
        for (String model : new String[]{q.model(), Quota.ANY_MODEL}) {
            PoolCommitment c = commitments.get(q.poolId() + "/" + model);
            if (overcommitted == null && c != null && c.exceedsPool()) {
                overcommitted = c;
            }
        }
        return new QuotaView(q.tenantId(), q.poolId(), q.model(), q.guaranteedGpus(), q.borrowingLimit(),
                q.lendingLimit(), overcommitted);
    }
}
