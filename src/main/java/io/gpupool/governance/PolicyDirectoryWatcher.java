package io.gpupool.governance;

import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.policy.ruleset.RuleSetFiles;
import io.gpupool.policy.ruleset.RuleSetHash;
import io.gpupool.problem.ProblemException;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Hot reload: polls {@code gpupool.policy.watch-dir} and turns every change of its content into a
 * new version (author {@code file-watch}), activated only if it validates. A broken edit is
 * recorded in the history and logged, and is not tried again until the files change once more.
 * Polling a content hash (rather than file events) also catches editors that replace files and
 * network file systems that send no events.
 */
@Singleton
@Requires(property = "gpupool.policy.watch-dir", pattern = ".+")
public class PolicyDirectoryWatcher {
    static final String AUTHOR = "file-watch";
    private static final Logger LOG = LoggerFactory.getLogger(PolicyDirectoryWatcher.class);

    private final PolicyLifecycle lifecycle;
    private final Path directory;
    private volatile String lastSeenHash = "";

    PolicyDirectoryWatcher(PolicyLifecycle lifecycle, @Value("${gpupool.policy.watch-dir}") String directory) {
        this.lifecycle = lifecycle;
        this.directory = Path.of(directory);
    }

    /** Outcome of one poll, for logs and tests. */
    public enum Outcome { UNCHANGED, ACTIVATED, REJECTED, MISSING }

    @Scheduled(fixedDelay = "${gpupool.policy.watch-interval:2s}", initialDelay = "${gpupool.policy.watch-interval:2s}")
    void scheduledPoll() {
        poll();
    }

    public synchronized Outcome poll() {
        if (!Files.isDirectory(directory)) {
            return Outcome.MISSING;
        }
        RuleSet onDisk = RuleSetFiles.fromDirectory(directory, "draft");
        String hash = RuleSetHash.sha256(onDisk);
        if (hash.equals(lastSeenHash) || onDisk.files().isEmpty()) {
            lastSeenHash = hash;
            return Outcome.UNCHANGED;
        }
        lastSeenHash = hash;
        try {
            // a layered folder (policy.yaml) is compared as the complete set it resolves to, as stored
            RuleSet resolved = LayeringSummary.resolve(onDisk.files()).ruleSet();
            if (RuleSetHash.sha256(resolved).equals(lifecycle.activeContentHash())) {
                return Outcome.UNCHANGED;
            }
            UploadResult uploaded = lifecycle.upload(onDisk.files(), "Edited in " + directory, AUTHOR);
            lifecycle.activate(uploaded.version().version(), AUTHOR, "Hot reload of " + directory, false);
            LOG.info("Policy directory {} changed: {} activated", directory, uploaded.version().label());
            return Outcome.ACTIVATED;
        } catch (ProblemException e) {
            LOG.error("Policy directory {} changed but was not activated: {} {}", directory, e.getMessage(), e.errors());
            return Outcome.REJECTED;
        }
    }
}
