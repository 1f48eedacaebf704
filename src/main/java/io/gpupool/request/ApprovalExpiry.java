package io.gpupool.request;

import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lapses undecided approvals once they pass their expiry ({@code gpupool.approvals.expire-after},
 * default 72 h), checked every {@code gpupool.approvals.expiry-check} (default 1 min): an approval
 * may so outlive its expiry by up to that interval, but never be approved after it (Approvals refuses).
 */
@Singleton
public class ApprovalExpiry {
    private static final Logger LOG = LoggerFactory.getLogger(ApprovalExpiry.class);
    private final Approvals approvals;

    ApprovalExpiry(Approvals approvals) {
        this.approvals = approvals;
    }

    @Scheduled(fixedDelay = "${gpupool.approvals.expiry-check:1m}", initialDelay = "${gpupool.approvals.expiry-check:1m}")
    void run() {
        try {
            int lapsed = approvals.expireLapsed();
            if (lapsed > 0) {
                LOG.info("{} approval(s) lapsed undecided", lapsed);
            }
        } catch (RuntimeException e) {
            LOG.warn("Lapsing approvals failed; retried at the next check: {}", e.getMessage());
        }
    }
}
