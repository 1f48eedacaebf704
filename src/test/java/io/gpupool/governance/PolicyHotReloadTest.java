package io.gpupool.governance;

import io.gpupool.governance.PolicyDirectoryWatcher.Outcome;
import io.gpupool.testing.DatabaseTest;
import io.gpupool.testing.PolicyFiles;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Editing the watched directory activates valid edits, records broken ones, and does not retry them. */
@DatabaseTest
class PolicyHotReloadTest {

    private static void write(Path dir, Map<String, String> files) throws IOException {
        for (Map.Entry<String, String> f : files.entrySet()) {
            Path target = dir.resolve(f.getKey());
            Files.createDirectories(target.getParent());
            Files.writeString(target, f.getValue());
        }
    }

    @Test
    void aValidEditIsActivatedAndABrokenOneIsRecordedButNeverActivatedNorRetried(@TempDir Path dir) throws IOException {
        Map<String, Object> props = Map.of("gpupool.policy.watch-dir", dir.toString(),
                "gpupool.policy.watch-interval", "1h", "micronaut.server.port", -1);
        try (ApplicationContext ctx = ApplicationContext.run(props, "test")) {
            PolicyDirectoryWatcher watcher = ctx.getBean(PolicyDirectoryWatcher.class);
            PolicyLifecycle lifecycle = ctx.getBean(PolicyLifecycle.class);
            ActivePolicy active = ctx.getBean(ActivePolicy.class);

            write(dir, PolicyFiles.defaults());
            assertThat(watcher.poll()).as("same content as the active default").isEqualTo(Outcome.UNCHANGED);

            write(dir, PolicyFiles.staleAfterTwoMinutes());
            assertThat(watcher.poll()).isEqualTo(Outcome.ACTIVATED);
            assertThat(active.current().version()).isEqualTo(2);
            assertThat(lifecycle.version(2).author()).isEqualTo("file-watch");

            Files.writeString(dir.resolve(PolicyFiles.RECLAMATION), "rule \"half written");
            assertThat(watcher.poll()).isEqualTo(Outcome.REJECTED);
            assertThat(watcher.poll()).as("not retried until the files change").isEqualTo(Outcome.UNCHANGED);
            assertThat(active.current().version()).isEqualTo(2);

            var history = ctx.getBean(PolicyHistory.class).all();
            assertThat(history.get(history.size() - 1).event()).isEqualTo(HistoryEvent.VALIDATION_FAILED);
            assertThat(history.get(history.size() - 1).author()).isEqualTo("file-watch");
        }
    }
}
