package io.gpupool.store.row;

import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.Notice;
import io.gpupool.domain.lease.WorkloadKind;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.data.annotation.Id;
import io.micronaut.data.annotation.MappedEntity;

import java.time.Instant;
import java.util.List;

@MappedEntity("lease")
public record LeaseRow(@Id String id, String requestId, String tenantId, String poolId, String kind, int priority,
                       boolean preemptible, boolean borrowed, @Nullable String gangId, String state,
                       Instant createdAt, @Nullable Instant expiresAt, @Nullable Instant lastHeartbeat,
                       @Nullable Instant deadline, @Nullable String noticeFor, @Nullable String noticeRules,
                       @Nullable String noticePolicyVersion, @Nullable String noticeReason,
                       @Nullable String priorityClass, @Nullable String lenderId, @Nullable Instant endedAt) {
    public static LeaseRow of(Lease l) {
        Notice n = l.notice();
        return new LeaseRow(l.id(), l.requestId(), l.tenantId(), l.poolId(), l.kind().name(), l.priority(),
                l.preemptible(), l.borrowed(), l.gangId(), l.state().name(), l.createdAt(), l.expiresAt(),
                l.lastHeartbeat(), l.deadline(), n == null ? null : n.forRequest(), n == null ? null : RuleNamesCodec.encode(n.ruleNames()),
                n == null ? null : n.policyVersion(), n == null ? null : n.reasonCode(), l.priorityClass(), l.lenderId(),
                l.endedAt());
    }

    public Lease toLease(List<DeviceShare> shares) {
        Notice notice = noticeRules == null && noticeReason == null && noticeFor == null ? null
                : new Notice(noticeFor, RuleNamesCodec.decode(noticeRules), noticePolicyVersion, noticeReason);
        return new Lease(id, requestId, tenantId, poolId, WorkloadKind.valueOf(kind), priority, preemptible, borrowed,
                gangId, LeaseState.valueOf(state), shares, createdAt, expiresAt, lastHeartbeat, deadline, notice, priorityClass,
                lenderId, endedAt);
    }
}
