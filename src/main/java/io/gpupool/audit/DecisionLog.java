package io.gpupool.audit;

import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.decision.DecisionAction;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.store.DecisionLogRepository;
import io.gpupool.store.DecisionLogRow;
import io.gpupool.store.PoolStore;
import jakarta.inject.Singleton;

import java.time.Instant;
import java.util.List;

/** Writes decision log entries inside the caller's transaction and reads them back for explain and audit. */
@Singleton
public class DecisionLog {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<List<String>> NAMES = new TypeReference<>() { };

    private final DecisionLogRepository rows;

    DecisionLog(DecisionLogRepository rows) {
        this.rows = rows;
    }

    /** Appends within the running mutation's transaction: the entry commits or rolls back with the change. */
    public static void append(PoolStore store, LoggedDecision d, Instant at) {
        try {
            store.append(new DecisionLogRow(null, at, d.action().name(), d.requestId(), d.leaseId(), d.tenantId(),
                    JSON.writeValueAsString(d.ruleNames()), d.policyVersion(), d.reasonCode(), d.message()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("rule names always serialise", e);
        }
    }

    public List<LoggedDecision> forRequest(String requestId) {
        return rows.findByRequestIdOrderById(requestId).stream().map(DecisionLog::toDecision).toList();
    }

    public List<LoggedDecision> forLease(String leaseId) {
        return rows.findByLeaseIdOrderById(leaseId).stream().map(DecisionLog::toDecision).toList();
    }

    /**
     * At most {@code limit} entries at or after {@code since}, in log order, after the entry
     * {@code afterId} (0: from the first).
     */
    public List<LoggedDecision> since(Instant since, long afterId, int limit) {
        List<DecisionLogRow> page = afterId == 0 ? rows.firstPageSince(since, limit) : rows.pageSinceAfter(since, afterId, limit);
        return page.stream().map(DecisionLog::toDecision).toList();
    }

    private static LoggedDecision toDecision(DecisionLogRow r) {
        try {
            return new LoggedDecision(r.id(), r.at(), DecisionAction.valueOf(r.action()), r.requestId(), r.leaseId(),
                    r.tenantId(), JSON.readValue(r.ruleNames(), NAMES), r.policyVersion(), r.reasonCode(), r.message());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("corrupt decision log row " + r.id(), e);
        }
    }
}
