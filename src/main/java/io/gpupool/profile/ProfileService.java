package io.gpupool.profile;

import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.inventory.DeviceProfile;
import io.gpupool.governance.ActivePolicy;
import io.gpupool.governance.PolicyActivated;
import io.gpupool.policy.engine.PolicyEngine;
import io.gpupool.policy.profile.DeviceProfiles;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.store.Committed;
import io.gpupool.store.WorkingSet;
import io.micronaut.context.annotation.Value;
import io.micronaut.runtime.event.annotation.EventListener;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps every device's stored profile (tier and labels) equal to what the active policy derives
 * from the inventory: derived again after each commit that changed a device (other than its
 * heartbeat time), a node or a pool, and after each activation or rollback. Derivation runs on its
 * own thread, one at a time; triggers that arrive meanwhile coalesce into one more run, which reads
 * the newest snapshot, so the last run always sees the last change. Only profiles that differ are
 * written, in one commit; their commit wakes the scheduler (requests that require labels).
 */
@Singleton
public class ProfileService {
    private static final Logger LOG = LoggerFactory.getLogger(ProfileService.class);

    private final WorkingSet workingSet;
    private final ActivePolicy activePolicy;
    private final PolicyEngine engine;
    private final Clock clock;
    private final boolean enabled;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "gpupool-profiles");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean queued = new AtomicBoolean();
    private final AtomicLong runs = new AtomicLong();
    private volatile boolean stopping;

    ProfileService(WorkingSet workingSet, ActivePolicy activePolicy, PolicyEngine engine, Clock clock,
                   @Value("${gpupool.profiles.derive:true}") boolean enabled) {
        this.workingSet = workingSet;
        this.activePolicy = activePolicy;
        this.engine = engine;
        this.clock = clock;
        this.enabled = enabled;
    }

    @EventListener
    void onCommitted(Committed change) {
        if (inventoryChanged(change)) {
            deriveSoon();
        }
    }

    @EventListener
    void onActivated(PolicyActivated activated) {
        deriveSoon();
    }

    /** Whether what profiles are derived from changed: a device (not only its heartbeat), a node or a pool. */
    static boolean inventoryChanged(Committed change) {
        PoolSnapshot before = change.before();
        PoolSnapshot after = change.after();
        if (before.nodes() != after.nodes() || before.pools() != after.pools()) {
            return true;
        }
        for (Device device : change.devices()) {
            Device was = before.devices().get(device.id());
            if (was == null || !sameButHeartbeat(was, device)) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameButHeartbeat(Device a, Device b) {
        return a.withHealth(a.health(), null).equals(b.withHealth(b.health(), null));
    }

    /** Schedules a derivation unless one is already waiting to start. */
    public void deriveSoon() {
        if (enabled && !stopping && queued.compareAndSet(false, true)) {
            try {
                worker.execute(this::runQueued);
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                queued.set(false); // shutting down: nothing more is derived
            }
        }
    }

    private void runQueued() {
        queued.set(false);
        if (stopping) {
            return;
        }
        try {
            deriveNow();
        } catch (RuntimeException e) {
            // The next inventory change or activation tries again; the stored profiles stay as they were.
            LOG.error("Deriving device profiles failed: {}", e.getMessage(), e);
        } finally {
            runs.incrementAndGet();
        }
    }

    /**
     * Derives every profile from the newest snapshot and writes those that changed; returns how
     * many. A policy whose evaluation fails changes nothing (its errors are logged).
     */
    public int deriveNow() {
        ActivePolicy.Active active = activePolicy.current();
        PoolSnapshot snapshot = workingSet.current();
        DeviceProfiles.Derived derived = DeviceProfiles.derive(engine, active.policy(), snapshot, clock.instant());
        if (!derived.evaluation().ok()) {
            LOG.error("Policy {} failed while deriving device profiles; they stay as they were: {}",
                    active.policy().version(), derived.evaluation().errors());
            return 0;
        }
        if (!derived.conflicts().isEmpty()) {
            LOG.warn("Policy {} gives {} devices two tiers (the first rule wins): {}", active.policy().version(),
                    derived.conflicts().size(), derived.conflicts());
        }
        List<DeviceProfile> changed = derived.profiles().values().stream()
                .filter(p -> !p.sameAs(snapshot.profiles().get(p.deviceId()))).toList();
        if (changed.isEmpty()) {
            return 0;
        }
        return workingSet.write((before, changes) -> {
            int written = 0;
            for (DeviceProfile p : changed) {
                // A device that changed since is derived again by the run its commit queued.
                if (before.devices().containsKey(p.deviceId()) && !p.sameAs(before.profiles().get(p.deviceId()))) {
                    changes.put(p);
                    written++;
                }
            }
            return written;
        });
    }

    /** Waits until no derivation is queued or running (tests and tools; {@code false} on timeout). */
    public boolean awaitIdle(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (System.nanoTime() < deadline) {
            java.util.concurrent.Future<?> marker = worker.submit(() -> { });
            try {
                marker.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                return false;
            }
            if (!queued.get()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Stops taking triggers and waits for a derivation under way: it writes through the working set,
     * which must not close (nor its database) under it.
     */
    @PreDestroy
    void stop() throws InterruptedException {
        stopping = true;
        worker.shutdown();
        if (!worker.awaitTermination(30, TimeUnit.SECONDS)) {
            LOG.warn("A device-profile derivation was still running at shutdown; it is abandoned");
            worker.shutdownNow();
        }
    }
}
