package io.gpupool.testing;

import io.gpupool.domain.lease.DeviceShare;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.lease.LeaseState;
import io.gpupool.domain.lease.Notice;
import io.gpupool.domain.lease.WorkloadKind;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Fluent {@link Lease}s for tests: {@code lease("l1").tenant("speech").whole("n1-gpu0").build()}. A test
 * names only what matters to it; the rest is an active, preemptible, unborrowed training lease of
 * tenant "vision" in pool "training" for request {@code "req-" + id}, holding nothing, created at
 * {@link Instant#EPOCH}, with no expiry, heartbeat or deadline.
 */
public final class Leases {
    /** A reclaim notice for no one, for tests where why a lease is under notice does not matter. */
    public static final Notice NOTICE = new Notice(null, List.of("test notice"), "v1", "TEST");

    private Leases() {
    }

    public static Builder lease(String id) {
        return new Builder(id);
    }

    /** A builder that starts as a copy of {@code l}, to change a few fields. */
    public static Builder copyOf(Lease l) {
        return new Builder(l.id()).request(l.requestId()).tenant(l.tenantId()).pool(l.poolId()).kind(l.kind())
                .priority(l.priority()).preemptible(l.preemptible()).borrowed(l.borrowed()).gang(l.gangId())
                .state(l.state()).shares(l.shares()).createdAt(l.createdAt()).expiresAt(l.expiresAt())
                .lastHeartbeat(l.lastHeartbeat()).deadline(l.deadline()).notice(l.notice())
                .priorityClass(l.priorityClass()).lender(l.lenderId()).endedAt(l.endedAt());
    }

    public static final class Builder {
        private String id;
        private String requestId;
        private String tenantId = "vision";
        private String poolId = "training";
        private WorkloadKind kind = WorkloadKind.TRAINING;
        private int priority;
        private boolean preemptible = true;
        private boolean borrowed;
        private String gangId;
        private LeaseState state = LeaseState.ACTIVE;
        private final List<DeviceShare> shares = new ArrayList<>();
        private Instant createdAt = Instant.EPOCH;
        private Instant expiresAt;
        private Instant lastHeartbeat;
        private Instant deadline;
        private Notice notice;
        private String priorityClass;
        private String lenderId;
        private Instant endedAt;

        private Builder(String id) {
            this.id = id;
            this.requestId = "req-" + id;
        }

        public Builder id(String value) { id = value; return this; }
        public Builder request(String value) { requestId = value; return this; }
        public Builder tenant(String value) { tenantId = value; return this; }
        public Builder pool(String value) { poolId = value; return this; }
        public Builder kind(WorkloadKind value) { kind = value; return this; }
        public Builder priority(int value) { priority = value; return this; }
        public Builder preemptible(boolean value) { preemptible = value; return this; }
        public Builder borrowed(boolean value) { borrowed = value; return this; }
        public Builder gang(String value) { gangId = value; return this; }
        public Builder state(LeaseState value) { state = value; return this; }
        public Builder createdAt(Instant value) { createdAt = value; return this; }
        public Builder expiresAt(Instant value) { expiresAt = value; return this; }
        public Builder lastHeartbeat(Instant value) { lastHeartbeat = value; return this; }
        public Builder deadline(Instant value) { deadline = value; return this; }
        public Builder notice(Notice value) { notice = value; return this; }
        public Builder priorityClass(String value) { priorityClass = value; return this; }
        public Builder lender(String value) { lenderId = value; return this; }
        public Builder endedAt(Instant value) { endedAt = value; return this; }

        /** Holds the whole of {@code deviceId}. */
        public Builder whole(String deviceId) { return share(deviceId, DeviceShare.WHOLE); }
        public Builder share(String deviceId, int milli) { return share(deviceId, milli, null); }
        public Builder share(String deviceId, int milli, String migProfile) {
            return share(new DeviceShare(deviceId, milli, migProfile));
        }
        public Builder share(DeviceShare value) { shares.add(value); return this; }

        /** Holds exactly {@code value} (replacing any shares added before). */
        public Builder shares(List<DeviceShare> value) { shares.clear(); shares.addAll(value); return this; }
        public Builder shares(DeviceShare... value) { return shares(List.of(value)); }

        public Lease build() {
            return new Lease(id, requestId, tenantId, poolId, kind, priority, preemptible, borrowed, gangId, state,
                    shares, createdAt, expiresAt, lastHeartbeat, deadline, notice, priorityClass, lenderId, endedAt);
        }
    }
}
