package io.gpupool.accounting;

import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.problem.ProblemException;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.LedgerStore.Column;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What a report groups GPU time by. Tenant, pool, model, kind, priority class, funding and lender are
 * recorded on each ledger entry when the lease starts; org, cost center and tier are read from the
 * current tenancy (the tenant's root, its own or nearest ancestor's cost center, the pool's tier), so
 * a reorganisation re-labels the whole history, as a showback over the current structure does.
 */
public enum Dimension {
    TENANT("tenant", Column.TENANT), ORG("org", Column.TENANT), COST_CENTER("costCenter", Column.TENANT),
    POOL("pool", Column.POOL), TIER("tier", Column.POOL), MODEL("model", Column.MODEL), KIND("kind", Column.KIND),
    PRIORITY_CLASS("priorityClass", Column.PRIORITY_CLASS), FUNDING("funding", Column.FUNDING),
    LENDER("lender", Column.LENDER);

    public final String key;
    final Column column;

    Dimension(String key, Column column) {
        this.key = key;
        this.column = column;
    }

    /** {@code groupBy} as given (comma-separated, several at once); an unknown name is a 400. */
    public static List<Dimension> parse(String groupBy) {
        if (groupBy == null || groupBy.isBlank()) {
            return List.of();
        }
        Set<Dimension> dims = new LinkedHashSet<>();
        List<String> errors = new ArrayList<>();
        for (String part : groupBy.split(",")) {
            String name = part.trim();
            Dimension found = null;
            for (Dimension d : values()) {
                if (d.key.equalsIgnoreCase(name) || d.name().equalsIgnoreCase(name)) {
                    found = d;
                }
            }
            if (found == null) {
                errors.add("groupBy: '" + io.gpupool.problem.FieldChecks.excerpt(name) + "' is not one of "
                        + String.join(", ", java.util.Arrays.stream(values()).map(d -> d.key).toList()));
            } else {
                dims.add(found);
            }
        }
        if (!errors.isEmpty()) {
            throw ProblemException.invalid("The report's grouping is not valid: " + errors.get(0), errors);
        }
        return List.copyOf(dims);
    }

    /** This dimension's value for a ledger group whose {@link #column} value is {@code raw}. */
    String value(String raw, PoolSnapshot model) {
        return switch (this) {
            case ORG -> {
                List<Tenant> lineage = model.lineage(raw);
                yield lineage.isEmpty() ? raw : lineage.get(lineage.size() - 1).id();
            }
            case COST_CENTER -> model.lineage(raw).stream().map(Tenant::costCenter).filter(c -> c != null)
                    .findFirst().orElse(null);
            case TIER -> model.pool(raw).map(Pool::tier).map(Enum::name).orElse(null);
            default -> raw;
        };
    }
}
