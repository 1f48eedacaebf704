package io.gpupool.allocator;

import io.gpupool.domain.lease.DeviceShare;

import java.util.ArrayList;
import java.util.List;

/**
 * The allocator's answer when a request fits: one {@link MemberPlacement} per gang member. A plan is
 * a proposal against the view it was computed on; committing it is the caller's job
 * ({@link CapacityView#apply} in simulation, the lease service in production).
 * {@code topologyHonoured} is false only when a preferred topology had to be relaxed.
 */
public record PlacementPlan(String requestId, String strategy, List<MemberPlacement> members,
                            boolean topologyHonoured) {
    public PlacementPlan {
        members = List.copyOf(members);
    }

    public int totalMilli() {
        int sum = 0;
        for (MemberPlacement m : members) {
            sum += m.gpuCount() * m.milliPerGpu();
        }
        return sum;
    }

    /** The plan as lease shares, one list per member, ready for {@code Lease.shares}. */
    public List<List<DeviceShare>> deviceShares(CapacityView view) {
        List<List<DeviceShare>> all = new ArrayList<>(members.size());
        for (MemberPlacement m : members) {
            List<DeviceShare> shares = new ArrayList<>(m.gpuCount());
            for (int g : m.gpus()) {
                int milli = m.migProfile() != null ? CapacityLayout.migMilli(m.migProfile()) : m.milliPerGpu();
                shares.add(new DeviceShare(view.deviceId(g), milli, m.migProfile()));
            }
            all.add(List.copyOf(shares));
        }
        return List.copyOf(all);
    }
}
