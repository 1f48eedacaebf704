package io.gpupool.policy.ruleset;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Reads a rule set from a folder on disk or on the classpath (exploded or inside a jar): every
 * {@code .drl} and {@code tests/*.yaml} file and a layered set's {@code policy.yaml}, keyed by its
 * path relative to the folder with '/' separators. The default set lives at {@code rules/} on the
 * classpath. A folder with a manifest holds only its changes: {@link RuleSetLayering} resolves it.
 */
public final class RuleSetFiles {
    public static final String DEFAULT_LOCATION = "rules";

    private RuleSetFiles() {
    }

    /** The default rule set shipped in {@code src/main/resources/rules}. */
    public static RuleSet defaultRuleSet() {
        return fromClasspath(DEFAULT_LOCATION, "default");
    }

    public static RuleSet fromClasspath(String location, String version) {
        URL url = RuleSetFiles.class.getClassLoader().getResource(location);
        if (url == null) {
            throw new IllegalArgumentException("No rule set on the classpath at " + location);
        }
        try {
            URI uri = url.toURI();
            if ("jar".equals(uri.getScheme())) {
                return fromJar(uri, location, version);
            }
            return fromDirectory(Path.of(uri), version);
        } catch (URISyntaxException | IOException e) {
            throw new IllegalStateException("Cannot read rule set at " + url, e);
        }
    }

    /** Reads inside a jar; the zip file system may already be open (another reader), then it is reused. */
    private static RuleSet fromJar(URI uri, String location, String version) throws IOException {
        try (FileSystem jar = FileSystems.newFileSystem(uri, Map.of())) {
            return fromDirectory(jar.getPath(location), version);
        } catch (java.nio.file.FileSystemAlreadyExistsException open) {
            return fromDirectory(FileSystems.getFileSystem(uri).getPath(location), version);
        }
    }

    public static RuleSet fromDirectory(Path root, String version) {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            walk.filter(Files::isRegularFile).forEach(p -> {
                String relative = root.relativize(p).toString().replace('\\', '/');
                if (RuleSet.isRuleFile(relative) || RuleSet.isTestFile(relative) || PolicyManifest.FILE.equals(relative)) {
                    files.put(relative, read(p));
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new RuleSet(version, files);
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
