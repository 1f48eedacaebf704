package io.gpupool.simulation;

import io.gpupool.policy.engine.EvaluationLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Runs a replay job in a child JVM ({@link ReplayChildMain}), so that the JIT compiling, collecting
 * and heap of a replay are the child's, not the service's: started with the service's own java and
 * class path, in a session of its own, at nice 19 in an autogroup of its own at nice 19 (the kernel
 * weighs a session's group against the service's group, so the child's threads, all of them, yield
 * to the lease path's), with a bounded heap ({@code gpupool.replay.child-heap}), the serial
 * collector and the fewest compiler threads. Without {@code setsid}, {@code nice} or
 * {@code sh} (not Linux) the child runs at the service's priority, and the service says so once.
 * See docs/policy-replay.md, "How a job runs".
 */
final class ReplayChildProcess {
    private static final Logger LOG = LoggerFactory.getLogger(ReplayChildProcess.class);
    /** Puts the child in its own autogroup at the lowest weight, then becomes it at nice 19. */
    static final String LOWERED = "{ echo 19 > /proc/self/autogroup; } 2>/dev/null; exec nice -n 19 \"$0\" \"$@\"";
    private static final int STDERR_LINES = 8;

    /** Why a child ended without a result: its exit status and the end of what it wrote to stderr. */
    static final class Failed extends RuntimeException {
        Failed(String message) {
            super(message);
        }
    }

    private final Path workDir;
    private final String heap;
    private final String javaCommand;
    private final String classPath;
    private final List<String> lowering;
    private final Set<Process> running = ConcurrentHashMap.newKeySet();

    ReplayChildProcess(Path workDir, String heap) {
        this.workDir = workDir;
        this.heap = heap;
        this.javaCommand = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // absolute, so the child finds its classes whatever its working directory
        this.classPath = String.join(File.pathSeparator, Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !e.isEmpty()).map(e -> Path.of(e).toAbsolutePath().toString()).toList());
        this.lowering = lowering();
    }

    /** The commands that lower the child's priority, or none (logged) when this machine lacks them. */
    private static List<String> lowering() {
        List<String> missing = Stream.of("setsid", "nice", "sh").filter(tool -> onPath(tool) == null).toList();
        if (!missing.isEmpty() || !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            LOG.warn("Replay jobs' child processes run at the service's OS priority, beside the lease path: {}",
                    missing.isEmpty() ? "not Linux" : "no " + String.join(", ", missing) + " on the PATH");
            return List.of();
        }
        // -w: should setsid have to fork (it does when already a group leader), it waits, so the process we hold lives as long as the replay
        return List.of("setsid", "-w", "sh", "-c", LOWERED);
    }

    private static Path onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, tool);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** The child's whole command line for job directory {@code dir}. */
    List<String> command(Path dir) {
        List<String> command = new ArrayList<>(lowering);
        command.addAll(List.of(javaCommand, "-Xmx" + heap,
                // The fewest threads the JVM allows: the serial collector has no collector threads (a young
                // collection stops only the child), two compiler threads (one C1, one C2: the least with tiered
                // compiling; by default there are more the more cores), a common pool of one. The child is a batch
                // job at the lowest priority: it needs no parallelism, and each thread it does not start is one
                // fewer the kernel must hold back from the lease path. Not -XX:ActiveProcessorCount=1: the CPU
                // budget reads the machine's cores from the JVM to weigh the job's own use against /proc/stat.
                "-XX:+UseSerialGC", "-XX:CICompilerCount=2", "-Djava.util.concurrent.ForkJoinPool.common.parallelism=1",
                "-XX:+ExitOnOutOfMemoryError", // a heap over its bound ends the job FAILED (exit status 3)
                "-XX:+DisplayVMOutputToStderr", // the JVM's own messages ("Terminating due to …") where the reason is read from
                "-Djava.awt.headless=true", "-cp", classPath, ReplayChildMain.class.getName(), dir.toString()));
        return command;
    }

    /**
     * Writes {@code prepared} to a private directory, runs the child on it and reads its result back;
     * {@code started} is given the child as soon as it runs (to kill it when the job is cancelled).
     * Throws {@link Failed} when the child ends without a result; the directory is removed either way.
     */
    ReplayJobs.Outcome run(ReplayJobs.Prepared prepared, EvaluationLimits limits, double cpuShare, double machineBusy,
                           PolicyReplay.Progress progress, Consumer<Process> started) {
        Path dir;
        try {
            Files.createDirectories(workDir);
            dir = Files.createTempDirectory(workDir, "job-"); // owner-only where the file system has permissions
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the replay's directory under " + workDir, e);
        }
        try {
            ReplayJobFiles.write(dir, prepared, limits, cpuShare, machineBusy);
            Path stderr = dir.resolve("stderr.log");
            Process child = new ProcessBuilder(command(dir)).redirectError(stderr.toFile()).start();
            running.add(child);
            try {
                started.accept(child);
                String failure = readProgress(child, progress);
                int status = child.waitFor();
                if (status == 0) {
                    java.util.Optional<ReplayJobs.Outcome> outcome = ReplayJobFiles.readResult(dir);
                    if (outcome.isPresent()) {
                        return outcome.get();
                    }
                }
                if (status == 1 && failure != null) { // the replay itself failed: said as an in-service job says it
                    LOG.warn("Replay child {} failed: {}", child.pid(), failure);
                    throw new Failed("The replay failed midway and kept nothing: " + failure);
                }
                String tail = tail(stderr);
                LOG.warn("Replay child {} ended with exit status {}: {}", child.pid(), status, tail);
                throw new Failed("The replay's process ended with exit status " + status + why(status) + " and kept nothing"
                        + (tail.isEmpty() ? "" : ": " + tail));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                kill(child);
                throw new java.util.concurrent.CancellationException("the service is stopping");
            } finally {
                running.remove(child);
                kill(child); // its service-watch would end it too; do not leave it to chance
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the replay's process", e);
        } finally {
            delete(dir);
        }
    }

    private String why(int status) {
        if (status == 3) {
            return " (out of heap: gpupool.replay.child-heap is " + heap + ")";
        }
        return status > 128 ? " (killed by signal " + (status - 128) + ")" : "";
    }

    /**
     * Passes the child's progress lines on until its stdout closes; what it said failed, if it did. A
     * kill (a cancelled job, a stopping service) closes the child's streams under this read
     * ({@code Process.destroyForcibly} does): the read then ends here and the exit status says what
     * happened, instead of the job failing as if the child had never started. Any other read error
     * ends the child, so the wait for its exit that follows cannot hang.
     */
    private static String readProgress(Process child, PolicyReplay.Progress progress) {
        String failure = null;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                String[] f = line.split(" ", 5);
                if (f.length == 5 && f[0].equals(ReplayChildMain.PROGRESS)) {
                    try {
                        progress.at(Integer.parseInt(f[1]), Integer.parseInt(f[2]), f[4], Double.parseDouble(f[3]));
                    } catch (NumberFormatException ignored) {
                        // not a progress line after all: progress is advisory, the result is what counts
                    }
                } else if (line.startsWith(ReplayChildMain.FAILED + " ")) {
                    failure = line.substring(ReplayChildMain.FAILED.length() + 1);
                }
            }
        } catch (IOException e) {
            if (child.isAlive()) {
                LOG.warn("Cannot read replay child {}'s progress, ending it: {}", child.pid(), e.toString());
                kill(child);
            }
        }
        return failure;
    }

    /** Kills {@code child} and every process it started. */
    static void kill(Process child) {
        child.descendants().forEach(ProcessHandle::destroyForcibly);
        child.destroyForcibly();
    }

    /** Kills every child still running (the service is stopping). */
    void killAll() {
        running.forEach(ReplayChildProcess::kill);
    }

    /** The last lines the child wrote to stderr, stack frames left out, on one line. */
    private static String tail(Path stderr) {
        try {
            List<String> lines = Files.readAllLines(stderr, StandardCharsets.UTF_8).stream()
                    .filter(l -> !l.isBlank() && !l.trim().startsWith("at ") && !l.trim().startsWith("... ")) // the stack is in the log
                    .toList();
            String tail = String.join(" | ", lines.subList(Math.max(0, lines.size() - STDERR_LINES), lines.size()));
            return tail.length() > 2000 ? "…" + tail.substring(tail.length() - 2000) : tail;
        } catch (IOException | UncheckedIOException e) {
            return "";
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("Could not remove the replay's directory {}: {}", dir, e.toString());
        }
    }
}
