package io.gpupool.quota;

import io.gpupool.domain.tenancy.Quota;
import io.gpupool.problem.FieldChecks;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Quotas as the model takes them: every problem goes to {@code check}, so a caller can report them all at once. */
public final class Quotas {
    private Quotas() {
    }

    /**
     * The records of {@code specs}: each names a known tenant and pool ({@code tenantIds},
     * {@code poolIds}: the model's and those stated beside the quotas), has non-negative limits, a
     * lending limit within its guarantee, and a key of its own.
     */
    public static List<Quota> resolve(List<QuotaSpec> specs, Set<String> tenantIds, Set<String> poolIds, FieldChecks check) {
        List<Quota> quotas = new ArrayList<>();
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < specs.size(); i++) {
            QuotaSpec q = specs.get(i);
            String at = "quotas[" + i + "]";
            check.reference(at + ".tenant", q.tenant(), tenantIds, "tenant");
            check.reference(at + ".pool", q.pool(), poolIds, "pool");
            int guaranteed = q.guaranteedGpus() == null ? 0 : q.guaranteedGpus();
            int borrowing = q.borrowingLimit() == null ? 0 : q.borrowingLimit();
            int lending = q.lendingLimit() == null ? guaranteed : q.lendingLimit();
            check.nonNegative(at + ".guaranteedGpus", (long) guaranteed);
            check.nonNegative(at + ".borrowingLimit", (long) borrowing);
            check.range(at + ".lendingLimit", lending, 0, Math.max(0, guaranteed));
            String model = q.model() == null || q.model().isBlank() ? Quota.ANY_MODEL : q.model();
            Quota quota = new Quota(q.tenant(), q.pool(), model, guaranteed, borrowing, lending);
            if (!keys.add(quota.key())) {
                check.error(at + ": duplicate quota for " + quota.key());
            }
            quotas.add(quota);
        }
        return quotas;
    }
}
