package io.gpupool.governance;

import io.gpupool.store.row.PolicyDryRunRepository;
import io.gpupool.store.row.PolicyDryRunRow;
import jakarta.inject.Singleton;

import java.util.List;

/** The append-only record of dry-runs: one entry per dry-run that answered, read back oldest first. */
@Singleton
public class DryRunLog {
    private final PolicyDryRunRepository rows;

    DryRunLog(PolicyDryRunRepository rows) {
        this.rows = rows;
    }

    DryRunRecord append(DryRunRecord entry) {
        PolicyDryRunRow row = rows.save(new PolicyDryRunRow(null, entry.at(), entry.by(), entry.candidateHash(),
                entry.candidateVersion(), entry.activeVersion(), entry.input(), entry.requestsChanged(),
                entry.leasesChanged(), entry.devicesChanged(), entry.safeToActivate(), entry.summary()));
        return view(row);
    }

    public List<DryRunRecord> all() {
        return rows.listOrderById().stream().map(DryRunLog::view).toList();
    }

    private static DryRunRecord view(PolicyDryRunRow r) {
        return new DryRunRecord(r.id(), r.at(), r.principal(), r.candidateHash(), r.candidateVersion(), r.activeVersion(),
                r.input(), r.requestsChanged(), r.leasesChanged(), r.devicesChanged(), r.safeToActivate(), r.summary());
    }
}
