package io.gpupool.store;

import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceProfile;
import io.gpupool.domain.lease.Lease;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.snapshot.PoolSnapshot;

import java.util.ArrayList;
import java.util.List;

/**
 * What one commit changed, published by the {@link WorkingSet} right after the snapshot it made
 * (on the committing thread, under the writer lock: listeners must only hand work on). Whoever reacts
 * to changes of the model listens to this instead of being called by whoever made them.
 *
 * @param before   the snapshot published before this commit
 * @param after    the snapshot this commit published
 * @param leases   leases inserted or updated, their new values, in order
 * @param requests requests inserted or updated, their new values, in order
 * @param devices  devices inserted or updated, their new values
 * @param profiles device profiles derived anew, their new values
 * @param tenancy  whether pools, tenants or quotas changed
 * @param decisions decision log entries this commit appended, in order
 * @param writes   how many writes the commit served (the writer's group-commit batch size)
 */
public record Committed(PoolSnapshot before, PoolSnapshot after, List<Lease> leases, List<GpuRequest> requests,
                        List<Device> devices, List<DeviceProfile> profiles, boolean tenancy,
                        List<LoggedDecision> decisions, int writes) {

    static Committed of(PoolSnapshot before, PoolSnapshot after, List<RowBuffer> rows, int writes) {
        List<LoggedDecision> decisions = new ArrayList<>();
        List<Lease> leases = new ArrayList<>();
        List<GpuRequest> requests = new ArrayList<>();
        List<Device> devices = new ArrayList<>();
        List<DeviceProfile> profiles = new ArrayList<>();
        boolean tenancy = false;
        for (RowBuffer buffer : rows) {
            decisions.addAll(buffer.decisions());
            for (RowBuffer.Op op : buffer.ops()) {
                switch (op.kind()) {
                    case LEASE_INSERT, LEASE_UPDATE -> leases.add((Lease) op.row());
                    case REQUEST_INSERT, REQUEST_UPDATE -> requests.add((GpuRequest) op.row());
                    case DEVICE -> devices.add((Device) op.row());
                    case PROFILE -> profiles.add((DeviceProfile) op.row());
                    case POOL, TENANT, QUOTA, QUOTA_DELETE -> tenancy = true;
                    default -> { }
                }
            }
        }
        return new Committed(before, after, leases, requests, devices, profiles, tenancy, decisions, writes);
    }

    public boolean isEmpty() {
        return leases.isEmpty() && requests.isEmpty() && devices.isEmpty() && profiles.isEmpty() && !tenancy
                && decisions.isEmpty();
    }
}
