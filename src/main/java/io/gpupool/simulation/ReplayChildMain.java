package io.gpupool.simulation;

import io.gpupool.config.CpuBudget;
import io.gpupool.policy.engine.PolicyEngine;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The child process a replay job runs in ({@link ReplayChildProcess} starts it): reads the job
 * directory the service wrote ({@link ReplayJobFiles}), replays it with the same code an in-service
 * job runs ({@link ReplayJobs#replay}), and writes the result beside its inputs. It reports progress
 * as {@value #PROGRESS} lines on stdout (everything else it would print goes to stderr), exits 0 with
 * a whole result, 1 when the replay failed (after a {@value #FAILED} line with the reason, its stack
 * on stderr), and stops at once when its
 * standard input closes: the service that started it is gone, and nobody will read the result.
 */
public final class ReplayChildMain {
    /** The first word of a progress line: {@code gpupool-replay-progress <run> <runs> <done 0..1> <label>}. */
    static final String PROGRESS = "gpupool-replay-progress";
    /** The first word of the line saying why the replay failed ({@code gpupool-replay-failed <exception>}), before exit status 1. */
    static final String FAILED = "gpupool-replay-failed";
    /** Exit status of a child whose service went away. */
    static final int ORPHANED = 4; // not 3: -XX:+ExitOnOutOfMemoryError exits with 3

    private ReplayChildMain() {
    }

    public static void main(String[] args) {
        PrintStream progress = System.out;
        System.setOut(System.err); // stdout carries progress lines only, whatever a library prints
        if (args.length != 1) {
            System.err.println("usage: ReplayChildMain JOB_DIRECTORY");
            System.exit(2);
        }
        watchService(System.in);
        try {
            ReplayJobFiles.Read job = ReplayJobFiles.read(Path.of(args[0]));
            CpuBudget budget = CpuBudget.of(job.cpuShare(), job.machineBusy());
            ReplayJobs.Outcome outcome = ReplayJobs.replay(new PolicyEngine(job.limits()), job.prepared(),
                    (run, runs, label, done) -> {
                        progress.println(PROGRESS + " " + run + " " + runs + " " + String.format(Locale.ROOT, "%.4f", done) + " " + label);
                        progress.flush();
                    }, () -> ReplayJobs.paced(budget));
            ReplayJobFiles.writeResult(Path.of(args[0]), outcome);
            System.exit(0);
        } catch (IOException | RuntimeException e) {
            e.printStackTrace();
            progress.println(FAILED + " " + e.toString().replace('\n', ' ').replace('\r', ' '));
            progress.flush();
            System.exit(1);
        }
    }

    /** Ends the process when the service's end of its standard input closes (the service died without killing it). */
    private static void watchService(InputStream fromService) {
        Thread watch = new Thread(() -> {
            try {
                while (fromService.read() >= 0) {
                    // the service writes nothing: read only to learn of the end
                }
            } catch (IOException ignored) {
                // a broken pipe is an end as well
            }
            System.err.println("replay stopped: the service that started it is gone");
            Runtime.getRuntime().halt(ORPHANED);
        }, "service-watch");
        watch.setDaemon(true);
        watch.start();
    }
}
