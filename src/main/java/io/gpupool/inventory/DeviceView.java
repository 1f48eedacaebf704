package io.gpupool.inventory;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.gpupool.catalog.CardCatalog;
import io.gpupool.catalog.CardModel;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceProfile;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.snapshot.PoolSnapshot;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A device as the API shows it: its inventory record, how much of it leases hold right now, its
 * card model as the catalog resolves it, and the profile the active policy derived for it.
 */
public record DeviceView(@JsonUnwrapped Device device, int allocatedMilli, int freeMilli, Card card,
                         Profile profile, Activity activity) {

    /**
     * The newest activity a node agent measured on the whole card: the figure policy reads as
     * "active" ({@code value}, 0..1; {@code metric} says which reading), framebuffer in use, the
     * agent's source, and how old the sample is. Null when no agent measured the card recently.
     */
    public record Activity(String metric, Double value, Long framebufferUsedMib, String source, Instant at,
                           long ageSeconds) {
        static Activity of(io.gpupool.telemetry.ActivitySample s, Instant now) {
            return new Activity(s.metric(), s.value(), s.framebufferUsedMib(), s.source(), s.at(),
                    Math.max(0, java.time.Duration.between(s.at(), now).toSeconds()));
        }
    }

    /** The view with the device's latest measured activity. */
    public static DeviceView of(PoolSnapshot snapshot, Device d, io.gpupool.telemetry.DeviceTelemetry telemetry, Instant now) {
        DeviceView v = of(snapshot, d);
        Activity a = telemetry.latest(d.id()).map(s -> Activity.of(s, now)).orElse(null);
        return new DeviceView(v.device, v.allocatedMilli, v.freeMilli, v.card, v.profile, a);
    }

    /** The catalog's reading of the model name; {@code known} false: no family in the name. */
    public record Card(boolean known, String vendor, String family, String variant, int memoryGib,
                       String architecture, boolean migCapable, int nvlinkGeneration) {
        static Card of(CardModel m) {
            return new Card(m.known(), m.vendor(), m.family(), m.variant(), m.memoryGib(), m.architecture(),
                    m.migCapable(), m.nvlinkGeneration());
        }
    }

    /**
     * The derived profile (null until the active policy has classified the device). {@code poolTier}
     * is the tier of the pool the inventory put the device in; {@code matchesPool} is false when
     * policy says the card belongs in another tier (null when either is missing).
     */
    public record Profile(PoolTier tier, String tierRule, String tierReason, List<String> labels,
                          Map<String, String> labelRules, String policyVersion, Instant derivedAt, PoolTier poolTier,
                          Boolean matchesPool) {
    }

    public static DeviceView of(PoolSnapshot snapshot, Device d) {
        DeviceProfile p = snapshot.profiles().get(d.id());
        PoolTier poolTier = d.poolId() == null ? null : snapshot.pool(d.poolId()).map(Pool::tier).orElse(null);
        Profile profile = p == null ? null : new Profile(p.tier(), p.tierRule(), p.tierReason(),
                List.copyOf(p.labels().keySet()), p.labels(), p.policyVersion(), p.derivedAt(), poolTier,
                p.tier() == null || poolTier == null ? null : p.tier() == poolTier);
        return new DeviceView(d, snapshot.usedMilli(d.id()), snapshot.freeMilli(d.id()),
                Card.of(CardCatalog.active().resolve(d.model())), profile, null);
    }

    /** Whether the derived tier disagrees with the device's pool. */
    public boolean poolMismatch() {
        return profile != null && Boolean.FALSE.equals(profile.matchesPool());
    }
}
