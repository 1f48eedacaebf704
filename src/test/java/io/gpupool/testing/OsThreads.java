package io.gpupool.testing;

import io.gpupool.config.BackgroundPriority;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** This JVM's threads as the kernel sees them: native name (15 characters at most) → nice value. */
public final class OsThreads {
    private OsThreads() {
    }

    /** True where threads can be reniced: Linux's /proc and util-linux's renice. */
    public static boolean reniceable() {
        return BackgroundPriority.currentKernelThreadId().isPresent()
                && Stream.of(System.getenv("PATH").split(":")).anyMatch(d -> Files.isExecutable(Path.of(d, "renice")));
    }

    /** The nice value of each live thread whose native name starts with {@code prefix}, keyed "name/tid". */
    public static Map<String, Integer> niceOfThreadsNamed(String prefix) throws IOException {
        Map<String, Integer> out = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String name = Files.readString(task.resolve("comm")).trim();
                    long tid = Long.parseLong(task.getFileName().toString());
                    if (name.startsWith(prefix)) {
                        BackgroundPriority.niceOf(tid).ifPresent(n -> out.put(name + "/" + tid, n));
                    }
                } catch (IOException e) {
                    // the thread ended while listed
                }
            }
        }
        return out;
    }
}
