package io.gpupool.fleet;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.fleet.ImportSummary.Counts;
import io.gpupool.domain.inventory.Cluster;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.Node;
import io.gpupool.domain.inventory.Site;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.store.ContentHash;
import io.gpupool.store.row.FleetImportRepository;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Singleton;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Applies a fleet document as an idempotent, all-or-nothing upsert: every record is validated first,
 * then all changed records are written in one transaction. Records absent from the document are
 * left alone (an import never deletes).
 */
@Singleton
public class FleetImporter {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final WorkingSet workingSet;
    private final FleetImportRepository imports;
    private final Clock clock;

    FleetImporter(WorkingSet workingSet, FleetImportRepository imports, Clock clock) {
        this.workingSet = workingSet;
        this.imports = imports;
        this.clock = clock;
    }

    public ImportSummary importText(String text, boolean yaml, String source, String principal) {
        return apply(FleetParser.parse(text, yaml), ContentHash.of(text), source, principal);
    }

    private ImportSummary apply(FleetDocument doc, String hash, String source, String principal) {
        return workingSet.write((before, changes) -> {
            ImportSummary summary = state(before, changes, doc, hash);
            changes.recordImport(source, hash, principal, clock.instant(), describe(summary));
            return summary;
        });
    }

    /**
     * {@code before} with the fleet document {@code text} applied, as an import would apply it but
     * never committed: the fleet a policy replay runs on when given a fleet file ("what if we add 16
     * H100 nodes"). A document that does not parse or check is refused as an import refuses it.
     */
    public static io.gpupool.snapshot.PoolSnapshot applied(io.gpupool.snapshot.PoolSnapshot before, String text) {
        io.gpupool.store.Changes changes = io.gpupool.store.Changes.uncommitted(before);
        state(before, changes, FleetParser.parse(text, FleetParser.looksLikeYaml(text)), ContentHash.of(text));
        return changes.after();
    }

    /** States the document's records that differ from {@code before}; counts what it created, updated and left. */
    private static ImportSummary state(io.gpupool.snapshot.PoolSnapshot before, io.gpupool.store.Changes changes,
                                       FleetDocument doc, String hash) {
        ResolvedFleet fleet = new FleetResolver(before).resolve(doc);
        Map<String, Counts> counts = new LinkedHashMap<>();
        counts.put("sites", upsert(fleet.sites(), before.sites(), Site::id, changes::put));
        counts.put("clusters", upsert(fleet.clusters(), before.clusters(), Cluster::id, changes::put));
        counts.put("pools", upsert(fleet.pools(), before.pools(), Pool::id, changes::put));
        counts.put("nodes", upsert(fleet.nodes(), before.nodes(), Node::id, changes::put));
        counts.put("devices", upsert(fleet.devices(), before.devices(), Device::id, changes::put));
        counts.put("tenants", upsert(fleet.tenants(), before.tenants(), Tenant::id, changes::put));
        counts.put("quotas", upsert(fleet.quotas(), before.quotas(), Quota::key, changes::put));
        return new ImportSummary(hash, true, counts);
    }

    /** Whether {@code text} is exactly what was last applied from {@code source}. */
    public boolean alreadyApplied(String text, String source) {
        return imports.findFirstBySourceOrderByIdDesc(source).map(r -> r.contentHash().equals(ContentHash.of(text))).orElse(false);
    }

    /** States every record that differs from what the model holds; counts created, updated and unchanged. */
    private static <T> Counts upsert(List<T> records, Map<String, T> existing, Function<T, String> key,
                                     Consumer<T> put) {
        int created = 0;
        int updated = 0;
        int unchanged = 0;
        for (T record : records) {
            T old = existing.get(key.apply(record));
            if (record.equals(old)) {
                unchanged++;
                continue;
            }
            put.accept(record);
            if (old == null) {
                created++;
            } else {
                updated++;
            }
        }
        return new Counts(created, updated, unchanged);
    }

    private static String describe(ImportSummary summary) {
        try {
            return JSON.writeValueAsString(summary.changes());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("summary is plain data", e);
        }
    }
}
