package io.gpupool.quota;

import io.gpupool.catalog.CardCatalog;

import io.gpupool.domain.tenancy.Quota;
import io.gpupool.problem.FieldChecks;
import io.gpupool.problem.ProblemException;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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
            check.maxLength(at + ".model", q.model(), 128);
            int guaranteed = q.guaranteedGpus() == null ? 0 : q.guaranteedGpus();
            int borrowing = q.borrowingLimit() == null ? 0 : q.borrowingLimit();
            int lending = q.lendingLimit() == null ? guaranteed : q.lendingLimit();
            check.nonNegative(at + ".guaranteedGpus", (long) guaranteed);
            check.nonNegative(at + ".borrowingLimit", (long) borrowing);
            check.range(at + ".lendingLimit", lending, 0, Math.max(0, guaranteed));
            String model = q.model() == null || q.model().isBlank() ? Quota.ANY_MODEL : CardCatalog.canonical(q.model());
            Quota quota = new Quota(q.tenant(), q.pool(), model, guaranteed, borrowing, lending);
            if (!keys.add(quota.key())) {
                check.error(at + ": duplicate quota for " + quota.key());
            }
            quotas.add(quota);
        }
        return quotas;
    }

    /**
     * Refuses (422, nothing written) a write that leaves a pool it sets quotas in more over-committed
     * than before: guarantees beyond the pool's GPUs, for all models or for one card model, unless
     * the write's quota in that pool says {@code overcommit}. {@code before} and {@code after} are
     * the quotas, tenant parents and devices without and with the write.
     */
    public static void refuseOvercommitment(Map<String, PoolCommitment> before, Map<String, PoolCommitment> after,
                                            List<QuotaSpec> specs, String what, String hint) {
        Set<String> checked = new HashSet<>();
        Set<String> allowed = new HashSet<>();
        for (QuotaSpec q : specs) {
            checked.add(q.pool());
            if (q.overcommits()) {
                allowed.add(q.pool());
            }
        }
        List<String> refusals = Commitments.refusals(before, after, checked, allowed);
        if (!refusals.isEmpty()) {
            throw ProblemException.unprocessable(what + ": " + refusals.get(0) + "; " + hint, refusals);
        }
    }
}
