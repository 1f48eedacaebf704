package io.gpupool.tenant;

import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.problem.FieldChecks;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Tenants as the model takes them: a tree, every problem going to {@code check} so a caller can report them all. */
public final class TenantTree {
    private TenantTree() {
    }

    /**
     * The records of {@code specs}, parents first (so a document may list a team before its org
     * without breaking the foreign key): each parent is a known tenant ({@code tenantIds}: the
     * model's and those stated beside), and no tenant becomes its own ancestor, counting the
     * {@code current} tree.
     */
    public static List<Tenant> resolve(List<TenantSpec> specs, Map<String, Tenant> current, Set<String> tenantIds,
                                       FieldChecks check) {
        Map<String, String> parents = new HashMap<>();
        current.values().forEach(t -> parents.put(t.id(), t.parentId()));
        List<Tenant> tenants = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            TenantSpec t = specs.get(i);
            check.maxLength("tenants[" + i + "].name", t.name(), 256);
            check.maxLength("tenants[" + i + "].costCenter", t.costCenter(), 128);
            if (t.parent() != null) {
                check.reference("tenants[" + i + "].parent", t.parent(), tenantIds, "tenant");
            }
            parents.put(t.id(), t.parent());
            tenants.add(new Tenant(t.id(), t.name() == null || t.name().isBlank() ? t.id() : t.name(), t.parent(),
                    t.costCenter()));
        }
        for (TenantSpec t : specs) {
            Set<String> seen = new HashSet<>();
            for (String at = t.id(); at != null; at = parents.get(at)) {
                if (!seen.add(at)) {
                    check.error("tenants: '" + FieldChecks.excerpt(t.id()) + "' is its own ancestor (parent cycle)");
                    break;
                }
            }
        }
        tenants.sort(Comparator.comparingInt(t -> depth(t.id(), parents)));
        return tenants;
    }

    private static int depth(String id, Map<String, String> parents) {
        int depth = 0;
        for (String at = parents.get(id); at != null && depth <= parents.size(); at = parents.get(at)) {
            depth++;
        }
        return depth;
    }
}
