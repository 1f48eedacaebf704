package io.gpupool.store.row;

import io.gpupool.domain.tenancy.Quota;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

@MappedEntity("quota")
public record QuotaRow(@Id String id, String tenantId, String poolId, String model, int guaranteedGpus,
                       int borrowingLimit, int lendingLimit) {
    public static QuotaRow of(Quota q) {
        return new QuotaRow(q.key(), q.tenantId(), q.poolId(), q.model(), q.guaranteedGpus(), q.borrowingLimit(),
                q.lendingLimit());
    }

    public Quota toQuota() {
        return new Quota(tenantId, poolId, model, guaranteedGpus, borrowingLimit, lendingLimit);
    }
}
