package io.gpupool.audit;

import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.decision.DecisionAction;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpupool.store.row.DecisionLogRepository;
import io.gpupool.store.row.DecisionLogRow;
import jakarta.inject.Singleton;

import java.time.Instant;
import java.util.List;

/** Reads the decision log back for explain and audit; entries are written with the change they explain ({@code Changes.log}). */
@Singleton
public class DecisionLog {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<List<String>> NAMES = new TypeReference<>() { };

    private final DecisionLogRepository rows;

    DecisionLog(DecisionLogRepository rows) {
        this.rows = rows;
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
                    r.tenantId(), JSON.readValue(r.ruleNames(), NAMES), r.policyVersion(), r.reasonCode(), r.message(),
                    r.idleSince());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("corrupt decision log row " + r.id(), e);
        }
    }
}
