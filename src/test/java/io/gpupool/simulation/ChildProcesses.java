package io.gpupool.simulation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The test JVM's replay children as the kernel sees them (Linux's /proc). */
final class ChildProcesses {
    private ChildProcesses() {
    }

    /** Every live descendant of this JVM that runs {@link ReplayChildMain}. */
    static List<ProcessHandle> replayChildren() {
        return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .filter(p -> commandLine(p.pid()).contains(ReplayChildMain.class.getName())).toList();
    }

    /** Waits until {@code child} has become the java it execs (its wrapper has lowered it by then). */
    static void awaitJava(ProcessHandle child) throws InterruptedException {
        for (int i = 0; i < 600 && child.isAlive(); i++) {
            String line = commandLine(child.pid());
            // setsid, then sh, then nice exec one another under the same pid, each with java's arguments in
            // its command line: only once java runs has nice lowered the priority
            if (line.contains(ReplayChildMain.class.getName()) && !line.startsWith("setsid") && !line.startsWith("sh")
                    && !line.startsWith("nice")) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the child did not become java: " + commandLine(child.pid()));
    }

    static String commandLine(long pid) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline")), StandardCharsets.UTF_8).replace('\0', ' ').trim();
        } catch (IOException e) {
            return ProcessHandle.of(pid).flatMap(p -> p.info().commandLine()).orElse("");
        }
    }

    /** Field 19 of /proc/PID/stat (stat(5)): the process's nice value. */
    static int nice(long pid) throws IOException {
        return Integer.parseInt(statFields(pid)[16]);
    }

    /** Field 6 of /proc/PID/stat: the session id. */
    static long sessionId(long pid) throws IOException {
        return Long.parseLong(statFields(pid)[3]);
    }

    /** /proc/PID/autogroup, e.g. "/autogroup-123 nice 19". */
    static String autogroup(long pid) throws IOException {
        return Files.readString(Path.of("/proc/" + pid + "/autogroup")).trim();
    }

    /** The fields after "(comm)", the first being field 3 (state). */
    private static String[] statFields(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        return stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
    }
}
