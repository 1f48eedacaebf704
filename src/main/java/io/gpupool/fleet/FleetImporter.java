package io.gpupool.fleet;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.fleet.ImportSummary.Counts;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.store.FleetImportRepository;
import io.gpupool.store.FleetImportRow;
import io.gpupool.store.PoolStore;
import io.gpupool.store.WorkingSet;
import jakarta.inject.Singleton;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
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
        return apply(FleetParser.parse(text, yaml), sha256(text), source, principal, before -> { });
    }

    /**
     * Applies a document built in code (the tenant, pool and quota endpoints use this, so every way
     * into the model shares one validation). {@code precondition} runs under the writer lock against the
     * current state and may refuse (e.g. 409 on an id that already exists).
     */
    public ImportSummary importDocument(FleetDocument doc, String source, String principal,
                                        Consumer<PoolSnapshot> precondition) {
        String hash;
        try {
            hash = sha256(JSON.writeValueAsString(doc));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("fleet documents are plain data", e);
        }
        return apply(doc, hash, source, principal, precondition);
    }

    private ImportSummary apply(FleetDocument doc, String hash, String source, String principal,
                                Consumer<PoolSnapshot> precondition) {
        return workingSet.write((before, next, store) -> {
            precondition.accept(before);
            ResolvedFleet fleet = new FleetResolver(before).resolve(doc);
            Map<String, Counts> changes = new LinkedHashMap<>();
            changes.put("sites", upsert(fleet.sites(), before.sites(), r -> r.id(), store::put, next::site));
            changes.put("clusters", upsert(fleet.clusters(), before.clusters(), r -> r.id(), store::put, next::cluster));
            changes.put("pools", upsert(fleet.pools(), before.pools(), r -> r.id(), store::put, next::pool));
            changes.put("nodes", upsert(fleet.nodes(), before.nodes(), r -> r.id(), store::put, next::node));
            changes.put("devices", upsert(fleet.devices(), before.devices(), r -> r.id(), store::put, next::device));
            changes.put("tenants", upsert(fleet.tenants(), before.tenants(), r -> r.id(), store::put, next::tenant));
            changes.put("quotas", upsert(fleet.quotas(), before.quotas(), r -> r.key(), store::put, next::quota));
            ImportSummary summary = new ImportSummary(hash, true, changes);
            store.beforeOutsideWrite(); // the import record has a repository of its own
            imports.save(new FleetImportRow(null, source, hash, principal, clock.instant(), describe(summary)));
            return summary;
        });
    }

    /** Whether {@code text} is exactly what was last applied from {@code source}. */
    public boolean alreadyApplied(String text, String source) {
        return imports.findFirstBySourceOrderByIdDesc(source).map(r -> r.contentHash().equals(sha256(text))).orElse(false);
    }

    public PoolSnapshot current() {
        return workingSet.current();
    }

    private static <T> Counts upsert(List<T> records, Map<String, T> existing, Function<T, String> key,
                                     PutRow<T> write, Function<T, PoolSnapshotBuilder> publish) {
        int created = 0;
        int updated = 0;
        int unchanged = 0;
        for (T record : records) {
            T old = existing.get(key.apply(record));
            if (record.equals(old)) {
                unchanged++;
                continue;
            }
            write.accept(record, old != null);
            publish.apply(record);
            if (old == null) {
                created++;
            } else {
                updated++;
            }
        }
        return new Counts(created, updated, unchanged);
    }

    @FunctionalInterface
    private interface PutRow<T> extends BiConsumer<T, Boolean> {
    }

    private static String describe(ImportSummary summary) {
        try {
            return JSON.writeValueAsString(summary.changes());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("summary is plain data", e);
        }
    }

    static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
