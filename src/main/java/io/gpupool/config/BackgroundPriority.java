package io.gpupool.config;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Background work (policy replay jobs, the telemetry writer, agent reports) at a low operating
 * system CPU priority, so the live lease path keeps the cores (docs/performance.md, "Lanes:
 * background work at a low OS priority"). Java's {@code Thread.setPriority} does nothing on Linux
 * (HotSpot ignores it unless run as root with {@code -XX:ThreadPriorityPolicy=1}), but each Java
 * thread is a kernel task with its own nice value, and raising one's own nice value needs no
 * privilege: a thread made by {@link #threads} learns its kernel thread id from
 * {@code /proc/thread-self} and runs {@code renice -n 19 -p <tid>} on itself before its first task,
 * then reads the value back from {@code /proc}.
 *
 * <p>Where that is not possible (no {@code /proc}, no {@code renice}, another OS) the first failure is
 * logged once as a warning and the work runs at normal priority: slower neighbours, never lost work.
 * Threads a lowered thread starts inherit its nice value (Linux copies it at {@code clone}), so a
 * lowered thread must not be the one that lazily starts a shared pool the lease path uses.
 */
public final class BackgroundPriority {
    private static final Logger LOG = LoggerFactory.getLogger(BackgroundPriority.class);
    /** The lowest priority Linux has: a nice-19 task gets ~1.5 % of a core a nice-0 task wants. */
    public static final int LOWEST = 19;
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private final List<String> command;
    private final int nice;

    /** {@code renice} from the PATH, to {@code nice} (0 to 19; 0: threads stay as they are). */
    public static BackgroundPriority of(int nice) {
        if (nice < 0 || nice > LOWEST) {
            throw new IllegalArgumentException("a background nice value is 0 to " + LOWEST + ", was " + nice);
        }
        return new BackgroundPriority(List.of("renice"), nice);
    }

    /** With another command in place of {@code renice} (the tests' missing tool). */
    static BackgroundPriority using(List<String> command, int nice) {
        return new BackgroundPriority(command, nice);
    }

    private BackgroundPriority(List<String> command, int nice) {
        this.command = List.copyOf(command);
        this.nice = nice;
    }

    /** Lowest-priority daemon threads named {@code name-1}, {@code name-2}, …; each lowers itself once. */
    public static ThreadFactory threads(String name) {
        return of(LOWEST).factory(name);
    }

    /** Daemon threads named {@code name-N} that lower themselves to this nice value before their first task. */
    public ThreadFactory factory(String name) {
        AtomicInteger n = new AtomicInteger();
        return task -> {
            Thread t = new Thread(() -> {
                lowerCurrentThread();
                task.run();
            }, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * Lowers the calling thread's OS priority to this nice value (never raises it); true when the
     * kernel now shows it at least that low, false (logged once) when it could not be done.
     */
    public boolean lowerCurrentThread() {
        OptionalLong tid = currentKernelThreadId();
        if (tid.isEmpty()) {
            return failed("no /proc/thread-self (not Linux?)");
        }
        OptionalInt now = niceOf(tid.getAsLong());
        if (now.isPresent() && now.getAsInt() >= nice) {
            return true;
        }
        try {
            Process p = new ProcessBuilder(concat(command, List.of("-n", Integer.toString(nice), "-p",
                    Long.toString(tid.getAsLong())))).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return failed(command.get(0) + " did not finish in 10 s");
            }
            if (p.exitValue() != 0) {
                return failed(command.get(0) + " exited with " + p.exitValue() + ": " + out);
            }
        } catch (IOException e) {
            return failed("cannot run " + command.get(0) + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed("interrupted");
        }
        OptionalInt after = niceOf(tid.getAsLong());
        return after.isPresent() && after.getAsInt() >= nice
                || failed("the thread's nice value is " + (after.isPresent() ? after.getAsInt() : "unknown") + " after renice");
    }

    /** The kernel's id of the calling thread ({@code /proc/thread-self} → {@code <pid>/task/<tid>}). */
    public static OptionalLong currentKernelThreadId() {
        try {
            Path link = Files.readSymbolicLink(Path.of("/proc/thread-self"));
            return OptionalLong.of(Long.parseLong(link.getFileName().toString()));
        } catch (IOException | UnsupportedOperationException | NumberFormatException | SecurityException e) {
            return OptionalLong.empty();
        }
    }

    /** The nice value of thread {@code tid} of this process, from {@code /proc/self/task/<tid>/stat}. */
    public static OptionalInt niceOf(long tid) {
        try {
            String stat = Files.readString(Path.of("/proc/self/task/" + tid + "/stat"));
            // "tid (comm) state ppid …": comm may hold spaces and parentheses; fields count from the last ')'.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            return OptionalInt.of(Integer.parseInt(fields[16])); // field 19 of stat(5); field 3 is fields[0]
        } catch (IOException | RuntimeException e) {
            return OptionalInt.empty();
        }
    }

    private boolean failed(String why) {
        if (WARNED.compareAndSet(false, true)) {
            LOG.warn("Background work runs at normal OS priority, beside the lease path: {} (docs/performance.md, "
                    + "\"Lanes\")", why);
        }
        return false;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
