package io.gpupool.store;

import io.gpupool.fleet.FleetFileLoader;
import io.gpupool.domain.inventory.DeviceHealth;
import io.gpupool.domain.inventory.Heartbeat;
import io.gpupool.inventory.HeartbeatService;
import io.gpupool.auth.Caller;
import io.gpupool.auth.Role;
import io.gpupool.lease.LeaseService;
import io.gpupool.lease.UsageRecorder;
import io.gpupool.domain.lease.UsageReport;
import io.gpupool.domain.lease.WorkloadKind;
import io.gpupool.policy.fact.UsageHistory;
import io.gpupool.domain.lease.UsageSample;
import io.gpupool.request.AllocationService;
import io.gpupool.request.NewRequest;
import io.gpupool.request.decision.Outcome;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.ExampleFleet;
import io.gpupool.testing.TestDatabase;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stops and starts the service on the same database: everything committed is still there, and a
 * fleet file that did not change is not re-applied over runtime state (a device's health).
 */
@DatabaseTest
class RestartKeepsDataTest {

    @Test
    void aRestartKeepsTheFleetAndRuntimeHealthChanges(@TempDir Path dir) {
        Map<String, Object> first = TestDatabase.restartable(dir, true);
        try (ApplicationContext ctx = ApplicationContext.run(first, "test")) {
            assertThat(ctx.getBean(WorkingSet.class).current().devices()).hasSize(ExampleFleet.DEVICES);
            ctx.getBean(HeartbeatService.class).record("fra-h100-02-gpu1", new Heartbeat(DeviceHealth.UNHEALTHY, null));
        }

        try (ApplicationContext ctx = ApplicationContext.run(TestDatabase.restartable(dir, false), "test")) {
            ctx.getBean(FleetFileLoader.class);
            var snapshot = ctx.getBean(WorkingSet.class).current();
            assertThat(snapshot.devices()).hasSize(ExampleFleet.DEVICES);
            assertThat(snapshot.tenants()).hasSize(8);
            assertThat(snapshot.device("fra-h100-02-gpu1").orElseThrow().health()).isEqualTo(DeviceHealth.UNHEALTHY);
            assertThat(snapshot.device("fra-h100-02-gpu1").orElseThrow().lastHeartbeat()).isNotNull();
            assertThat(ctx.getBean(io.gpupool.governance.ActivePolicy.class).current().version())
                    .as("the stored active policy is loaded again, not re-created").isEqualTo(1);
        }
    }

    @Test
    void aRestartKeepsHowLongALeaseHasBeenIdle(@TempDir Path dir) {
        Caller admin = new Caller("test", "test", Role.ADMIN, null);
        Instant now = Instant.now();
        String lease;
        try (ApplicationContext ctx = ApplicationContext.run(TestDatabase.restartable(dir, true), "test")) {
            // granted before the samples it reports: a heartbeat from before its lease was granted is refused
            io.gpupool.testing.TestClock clock = ctx.getBean(io.gpupool.testing.TestClock.class);
            clock.freezeAt(now.minus(Duration.ofMinutes(160)));
            Outcome placed = ctx.getBean(AllocationService.class).submit(new NewRequest("vision", WorkloadKind.DEV, 1, null,
                    null, null, null, null, null, null, null, null, null, null, null), null, admin);
            lease = placed.lease().id();
            String device = placed.lease().shares().get(0).deviceId();
            LeaseService leases = ctx.getBean(LeaseService.class);
            for (int minutesAgo : new int[]{150, 120, 90}) {
                clock.freezeAt(now.minus(Duration.ofMinutes(minutesAgo)));
                leases.heartbeat(lease, new UsageReport(now.minus(Duration.ofMinutes(minutesAgo)),
                        List.of(new UsageReport.GpuUsage(device, minutesAgo == 150 ? 80.0 : 2.0, 1024L))), admin);
            }
        }

        try (ApplicationContext ctx = ApplicationContext.run(TestDatabase.restartable(dir, false), "test")) {
            List<UsageSample> restored = ctx.getBean(UsageRecorder.class).all();
            assertThat(restored).extracting(UsageSample::leaseId).containsOnly(lease);
            assertThat(restored).extracting(UsageSample::utilisation).containsExactly(0.8, 0.02, 0.02);
            assertThat(UsageHistory.of(restored, Instant.now()).idleSecondsBelow(0.05))
                    .as("idle since the busy heartbeat 150 minutes ago, not since the restart").isGreaterThanOrEqualTo(120 * 60);
        }
    }
}
