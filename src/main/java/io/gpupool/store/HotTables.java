package io.gpupool.store;

import io.gpupool.store.row.LedgerEntryRow;
import io.gpupool.store.row.UsageSampleRow;
import io.gpupool.store.row.LeaseShareRow;
import io.gpupool.store.row.LeaseRow;
import io.gpupool.store.row.GpuRequestRow;
import io.gpupool.store.row.DecisionLogRow;
import io.gpupool.store.HotRowWriter.Table;

import java.util.List;

import static io.gpupool.store.HotRowWriter.BOOL;
import static io.gpupool.store.HotRowWriter.INT;
import static io.gpupool.store.HotRowWriter.LONG;
import static io.gpupool.store.HotRowWriter.REAL;
import static io.gpupool.store.HotRowWriter.TEXT;
import static io.gpupool.store.HotRowWriter.TIME;
import static io.gpupool.store.HotRowWriter.column;

/**
 * The columns {@link HotRowWriter} writes, table by table, as the Flyway migrations define them.
 * Identity columns (decision log, shares, usage samples) are left to the database.
 */
final class HotTables {
    private HotTables() {
    }

    static final Table<GpuRequestRow> REQUEST = new Table<>("gpu_request", "id", List.of(
            column("id", TEXT, GpuRequestRow::id),
            column("tenant_id", TEXT, GpuRequestRow::tenantId),
            column("idempotency_key", TEXT, GpuRequestRow::idempotencyKey),
            column("kind", TEXT, GpuRequestRow::kind),
            column("gpus", INT, GpuRequestRow::gpus),
            column("milli_per_gpu", INT, GpuRequestRow::milliPerGpu),
            column("mig_profile", TEXT, GpuRequestRow::migProfile),
            column("allowed_models", TEXT, GpuRequestRow::allowedModels),
            column("min_memory_mib", LONG, GpuRequestRow::minMemoryMib),
            column("gang_size", INT, GpuRequestRow::gangSize),
            column("topology", TEXT, GpuRequestRow::topology),
            column("topology_required", BOOL, GpuRequestRow::topologyRequired),
            column("pool_id", TEXT, GpuRequestRow::poolId),
            column("priority_class", TEXT, GpuRequestRow::priorityClass),
            column("preemptible", BOOL, GpuRequestRow::preemptible),
            column("ttl_seconds", LONG, GpuRequestRow::ttlSeconds),
            column("state", TEXT, GpuRequestRow::state),
            column("priority", INT, GpuRequestRow::priority),
            column("lease_id", TEXT, GpuRequestRow::leaseId),
            column("why_pending", TEXT, GpuRequestRow::whyPending),
            column("created_at", TIME, GpuRequestRow::createdAt),
            column("updated_at", TIME, GpuRequestRow::updatedAt),
            column("required_labels", TEXT, GpuRequestRow::requiredLabels),
            column("approval", TEXT, GpuRequestRow::approval)));

    private static final List<HotRowWriter.Column<LeaseRow>> LEASE_COLUMNS = List.of(
            column("id", TEXT, LeaseRow::id),
            column("request_id", TEXT, LeaseRow::requestId),
            column("tenant_id", TEXT, LeaseRow::tenantId),
            column("pool_id", TEXT, LeaseRow::poolId),
            column("kind", TEXT, LeaseRow::kind),
            column("priority", INT, LeaseRow::priority),
            column("preemptible", BOOL, LeaseRow::preemptible),
            column("borrowed", BOOL, LeaseRow::borrowed),
            column("gang_id", TEXT, LeaseRow::gangId),
            column("state", TEXT, LeaseRow::state),
            column("created_at", TIME, LeaseRow::createdAt),
            column("expires_at", TIME, LeaseRow::expiresAt),
            column("last_heartbeat", TIME, LeaseRow::lastHeartbeat),
            column("deadline", TIME, LeaseRow::deadline),
            column("notice_for", TEXT, LeaseRow::noticeFor),
            column("notice_rules", TEXT, LeaseRow::noticeRules),
            column("notice_policy_version", TEXT, LeaseRow::noticePolicyVersion),
            column("notice_reason", TEXT, LeaseRow::noticeReason),
            column("priority_class", TEXT, LeaseRow::priorityClass),
            column("lender_id", TEXT, LeaseRow::lenderId),
            column("ended_at", TIME, LeaseRow::endedAt));

    /** A lease's row, written by a change that leaves its ledger sequence alone. */
    static final Table<LeaseRow> LEASE = new Table<>("lease", "id", LEASE_COLUMNS);

    /**
     * A lease's row with the commit's ledger sequence ({@link LedgerSequence}): where its GPU time
     * opened ({@code opened_seq}) or closed ({@code closed_seq}), and {@code ledger_seq}, the later of
     * the two, by which the rollup finds it (migration V19).
     */
    record SequencedLease(LeaseRow row, long seq) {
    }

    static final Table<SequencedLease> LEASE_OPENING = new Table<>("lease", "id", sequenced("opened_seq"));
    static final Table<SequencedLease> LEASE_CLOSING = new Table<>("lease", "id", sequenced("closed_seq"));

    private static List<HotRowWriter.Column<SequencedLease>> sequenced(String seqColumn) {
        List<HotRowWriter.Column<SequencedLease>> columns = new java.util.ArrayList<>();
        for (HotRowWriter.Column<LeaseRow> c : LEASE_COLUMNS) {
            columns.add(column(c.name(), c.sqlType(), s -> c.value().apply(s.row())));
        }
        columns.add(column(seqColumn, LONG, SequencedLease::seq));
        columns.add(column("ledger_seq", LONG, SequencedLease::seq));
        return List.copyOf(columns);
    }

    static final Table<LeaseShareRow> SHARE = new Table<>("lease_share", "id", List.of(
            column("lease_id", TEXT, LeaseShareRow::leaseId),
            column("device_id", TEXT, LeaseShareRow::deviceId),
            column("milli", INT, LeaseShareRow::milli),
            column("mig_profile", TEXT, LeaseShareRow::migProfile),
            column("model", TEXT, LeaseShareRow::model)));

    static final Table<DecisionLogRow> DECISION = new Table<>("decision_log", "id", List.of(
            column("at", TIME, DecisionLogRow::at),
            column("action", TEXT, DecisionLogRow::action),
            column("request_id", TEXT, DecisionLogRow::requestId),
            column("lease_id", TEXT, DecisionLogRow::leaseId),
            column("tenant_id", TEXT, DecisionLogRow::tenantId),
            column("rule_names", TEXT, DecisionLogRow::ruleNames),
            column("policy_version", TEXT, DecisionLogRow::policyVersion),
            column("reason_code", TEXT, DecisionLogRow::reasonCode),
            column("message", TEXT, DecisionLogRow::message),
            column("idle_since", TIME, DecisionLogRow::idleSince)));

    static final Table<UsageSampleRow> USAGE = new Table<>("usage_sample", "id", List.of(
            column("lease_id", TEXT, UsageSampleRow::leaseId),
            column("device_id", TEXT, UsageSampleRow::deviceId),
            column("at", TIME, UsageSampleRow::at),
            column("utilisation", REAL, UsageSampleRow::utilisation),
            column("memory_used_mib", LONG, UsageSampleRow::memoryUsedMib)));

    static final Table<LedgerEntryRow> LEDGER = new Table<>("ledger_entry", "id", List.of(
            column("at_ms", LONG, LedgerEntryRow::atMs),
            column("subject", TEXT, LedgerEntryRow::subject),
            column("delta_milli", INT, LedgerEntryRow::deltaMilli),
            column("device_id", TEXT, LedgerEntryRow::deviceId),
            column("model", TEXT, LedgerEntryRow::model),
            column("pool_id", TEXT, LedgerEntryRow::poolId),
            column("lease_id", TEXT, LedgerEntryRow::leaseId),
            column("tenant_id", TEXT, LedgerEntryRow::tenantId),
            column("kind", TEXT, LedgerEntryRow::kind),
            column("priority_class", TEXT, LedgerEntryRow::priorityClass),
            column("funding", TEXT, LedgerEntryRow::funding),
            column("lender_id", TEXT, LedgerEntryRow::lenderId),
            column("state", TEXT, LedgerEntryRow::state)));
}
