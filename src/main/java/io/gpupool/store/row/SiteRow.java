package io.gpupool.store.row;

import io.gpupool.domain.inventory.Site;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

@MappedEntity("site")
public record SiteRow(@Id String id, String name, @Nullable String region) {
    public static SiteRow of(Site s) {
        return new SiteRow(s.id(), s.name(), s.region());
    }

    public Site toSite() {
        return new Site(id, name, region);
    }
}
