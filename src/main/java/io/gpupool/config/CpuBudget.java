package io.gpupool.config;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Holds one background thread to a share of a core while the rest of the machine is busy, by
 * sleeping when it has used more CPU than its share of the wall time since its window began
 * (docs/operations.md, "Background work and the lease path"). A nice value alone does not bound what
 * background work costs the lease path: with the kernel's autogroups (one scheduling group per
 * session) every thread of the service is charged to one group, so a low-priority thread's CPU still
 * comes out of the group the lease path's threads share, and its allocations make collections that
 * pause them. While everything else on the machine uses less than {@code othersBelow} of its CPU
 * (the service is nearly idle), the thread runs unpaced.
 *
 * <p>Not thread-safe: one budget per thread, {@link #pace} called from that thread often (every few
 * milliseconds of work); it looks at its CPU clock at most every {@link #CHECK_NANOS} and at the
 * machine's at most every {@link #LOOK_NANOS}.
 */
public final class CpuBudget {
    static final long CHECK_NANOS = 10_000_000L;
    static final long LOOK_NANOS = 500_000_000L;
    /** Past this much wall time the window restarts: neither credit nor debt is carried for long. */
    static final long WINDOW_NANOS = 2_000_000_000L;

    /** What a budget reads and does: the wall clock, this thread's CPU time, the machine's CPU, sleeping. */
    interface Clocks {
        long wallNanos();

        long cpuNanos();

        /** The machine's {idle, all} CPU time so far, in any unit (ticks); null when unknown. */
        long[] machine();

        int cores();

        void sleep(long nanos) throws InterruptedException;
    }

    private final double share;
    private final double othersBelow;
    private final Clocks clocks;
    private long windowWall;
    private long windowCpu;
    private long lastCheck;
    private long lastLook;
    private long[] lookMachine;
    private long lookCpu;
    private boolean paced = true;
    private long slept;

    /**
     * At most {@code share} of one core (0 < share ≤ 1; 1: unpaced) while the rest of the machine
     * uses at least {@code othersBelow} (0..1) of its CPU.
     */
    public static CpuBudget of(double share, double othersBelow) {
        return new CpuBudget(share, othersBelow, new SystemClocks());
    }

    CpuBudget(double share, double othersBelow, Clocks clocks) {
        if (!(share > 0 && share <= 1) || !(othersBelow >= 0 && othersBelow <= 1)) {
            throw new IllegalArgumentException("a CPU share is in (0, 1], was " + share + "; a machine share in [0, 1], was "
                    + othersBelow);
        }
        this.share = share;
        this.othersBelow = othersBelow;
        this.clocks = clocks;
        long now = clocks.wallNanos();
        restart(now);
        lastLook = now;
        lookMachine = clocks.machine();
        lookCpu = clocks.cpuNanos();
    }

    /** Sleeps as long as the thread is over its share; returns at once when it is not, or may run unpaced. */
    public void pace() throws InterruptedException {
        if (share >= 1) {
            return;
        }
        long now = clocks.wallNanos();
        if (now - lastCheck < CHECK_NANOS) {
            return;
        }
        lastCheck = now;
        if (now - lastLook >= LOOK_NANOS) {
            look(now);
        }
        if (!paced) {
            restart(now);
            return;
        }
        long used = clocks.cpuNanos() - windowCpu;
        long owed = (long) (used / share) - (now - windowWall);
        if (owed > 0) {
            long nap = Math.min(owed, WINDOW_NANOS);
            clocks.sleep(nap);
            slept += nap;
            lastCheck = clocks.wallNanos();
        }
        if (clocks.wallNanos() - windowWall > WINDOW_NANOS) {
            restart(clocks.wallNanos());
        }
    }

    /** Whether this thread is held to its share now. */
    public boolean paced() {
        return paced;
    }

    /** Nanoseconds this budget has slept so far. */
    public long sleptNanos() {
        return slept;
    }

    /** Paced unless the machine's CPU other than this thread's was under {@code othersBelow} since the last look. */
    private void look(long now) {
        long[] machine = clocks.machine();
        long cpu = clocks.cpuNanos();
        if (machine == null || lookMachine == null || machine[1] <= lookMachine[1]) {
            paced = true;
        } else {
            double busy = 1 - (machine[0] - lookMachine[0]) / (double) (machine[1] - lookMachine[1]);
            double mine = (cpu - lookCpu) / (double) ((now - lastLook) * (long) clocks.cores());
            paced = busy - mine >= othersBelow;
        }
        lookMachine = machine;
        lookCpu = cpu;
        lastLook = now;
    }

    private void restart(long now) {
        windowWall = now;
        windowCpu = clocks.cpuNanos();
        lastCheck = now;
    }

    /** The real clocks: System.nanoTime, the thread's CPU time, /proc/stat. */
    static final class SystemClocks implements Clocks {
        private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

        @Override
        public long wallNanos() {
            return System.nanoTime();
        }

        @Override
        public long cpuNanos() {
            long cpu = threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : -1;
            return cpu < 0 ? System.nanoTime() : cpu; // no CPU clock: count wall time as used
        }

        /** {idle + iowait, all} ticks from the first line of /proc/stat; null when unreadable (then always paced). */
        @Override
        public long[] machine() {
            try (java.io.BufferedReader r = Files.newBufferedReader(Path.of("/proc/stat"))) {
                String[] f = r.readLine().trim().split("\\s+");
                if (f.length < 6 || !f[0].equals("cpu")) {
                    return null;
                }
                long all = 0;
                for (int i = 1; i < Math.min(f.length, 9); i++) { // user … steal; guest time is inside user
                    all += Long.parseLong(f[i]);
                }
                return new long[] {Long.parseLong(f[4]) + Long.parseLong(f[5]), all};
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }

        @Override
        public int cores() {
            return Runtime.getRuntime().availableProcessors();
        }

        @Override
        public void sleep(long nanos) throws InterruptedException {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        }
    }
}
