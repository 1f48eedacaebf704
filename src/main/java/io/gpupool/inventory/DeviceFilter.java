package io.gpupool.inventory;

import io.gpupool.catalog.CardCatalog;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.problem.ProblemException;

/**
 * Criteria for listing devices; null means "any". {@code label} matches an inventory label
 * ({@code key} or {@code key=value}) or a derived profile label ({@code nvlink}); {@code tier} the
 * derived tier; {@code catalog} is {@code known} or {@code unknown} (whether the card-model catalog
 * resolves the model name); {@code poolMismatch} true keeps the devices whose derived tier is not
 * their pool's.
 */
public record DeviceFilter(String model, String node, String cluster, String site, String pool, DeviceHealth health,
                           LabelSelector label, PoolTier tier, Boolean catalogKnown, Boolean poolMismatch) {

    public DeviceFilter(String model, String node, String cluster, String site, String pool, DeviceHealth health,
                        LabelSelector label) {
        this(model, node, cluster, site, pool, health, label, null, null, null);
    }

    /** {@code known}, {@code unknown} or null. */
    public static Boolean parseCatalog(String text) {
        if (text == null) {
            return null;
        }
        return switch (text) {
            case "known" -> true;
            case "unknown" -> false;
            default -> throw ProblemException.invalid("catalog filter must be 'known' or 'unknown', was '" + io.gpupool.problem.FieldChecks.excerpt(text) + "'");
        };
    }

    public boolean matches(DeviceView view) {
        Device d = view.device();
        return (model == null || model.equalsIgnoreCase(d.model()) || CardCatalog.canonical(model).equals(d.model()))
                && (node == null || node.equals(d.nodeId()))
                && (cluster == null || cluster.equals(d.clusterId()))
                && (site == null || site.equals(d.siteId()))
                && (pool == null || pool.equals(d.poolId()))
                && (health == null || health == d.health())
                && (label == null || label.matches(d.labels()) || profileHas(view, label))
                && (tier == null || view.profile() != null && tier == view.profile().tier())
                && (catalogKnown == null || catalogKnown == view.card().known())
                && (poolMismatch == null || poolMismatch == view.poolMismatch());
    }

    private static boolean profileHas(DeviceView view, LabelSelector label) {
        return label.value() == null && view.profile() != null && view.profile().labels().contains(label.key());
    }
}
