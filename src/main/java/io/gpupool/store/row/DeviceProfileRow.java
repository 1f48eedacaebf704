package io.gpupool.store.row;

import io.gpupool.domain.inventory.DeviceProfile;
import io.gpupool.domain.tenancy.PoolTier;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;

/** A device's derived profile; {@code labels} is a JSON object of label → the rule that gave it. */
@MappedEntity("device_profile")
public record DeviceProfileRow(@Id String deviceId, @Nullable String tier, @Nullable String tierRule,
                               @Nullable String tierReason, String labels, String policyVersion, Instant derivedAt) {
    public static DeviceProfileRow of(DeviceProfile p) {
        return new DeviceProfileRow(p.deviceId(), p.tier() == null ? null : p.tier().name(), p.tierRule(),
                p.tierReason(), LabelCodec.encode(p.labels()), p.policyVersion(), p.derivedAt());
    }

    public DeviceProfile toProfile() {
        return new DeviceProfile(deviceId, tier == null ? null : PoolTier.valueOf(tier), tierRule, tierReason,
                LabelCodec.decode(labels), policyVersion, derivedAt);
    }
}
