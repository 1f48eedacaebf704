package io.gpupool.store.row;

import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

@MappedEntity("pool")
public record PoolRow(@Id String id, String name, String tier, String placementStrategy, boolean sharingAllowed,
                      @Nullable String description) {
    public static PoolRow of(Pool p) {
        return new PoolRow(p.id(), p.name(), p.tier().name(), p.placementStrategy(), p.sharingAllowed(),
                p.description());
    }

    public Pool toPool() {
        return new Pool(id, name, PoolTier.valueOf(tier), placementStrategy, sharingAllowed, description);
    }
}
