package io.gpupool.store.row;

import io.gpupool.domain.lease.DeviceShare;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.GeneratedValue;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

@MappedEntity("lease_share")
public record LeaseShareRow(@Id @GeneratedValue @Nullable Long id, String leaseId, String deviceId, int milli,
                            @Nullable String migProfile, @Nullable String model) {
    /** {@code model}: the card's model the ledger attributes the share to (null: the share is not in the ledger). */
    public static LeaseShareRow of(String leaseId, DeviceShare s, String model) {
        return new LeaseShareRow(null, leaseId, s.deviceId(), s.milli(), s.migProfile(), model);
    }

    public DeviceShare toShare() {
        return new DeviceShare(deviceId, milli, migProfile);
    }
}
