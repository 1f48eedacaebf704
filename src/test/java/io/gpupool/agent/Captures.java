package io.gpupool.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The shipped captures (src/test/resources/inventory-samples, attribution in each folder's PROVENANCE.md). */
final class Captures {
    private Captures() {
    }

    static String read(String path) {
        try (InputStream in = Captures.class.getResourceAsStream("/inventory-samples/" + path)) {
            if (in == null) {
                throw new IllegalArgumentException("no capture " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * One section of an nvidia_gpu_exporter capture file: the lines after the banner whose title
     * starts with {@code title} ("load :: query-gpu (csv", "capabilities :: list (-L)"), up to the
     * next banner. Each banner is a rule of #, the title and command lines, and a rule again.
     */
    static String section(String path, String title) {
        String[] lines = read(path).split("\\R");
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].startsWith("# " + title)) {
                int start = i + 1;
                while (start < lines.length && lines[start].startsWith("#")) {
                    start++;
                }
                List<String> body = new ArrayList<>();
                for (int j = start; j < lines.length && !lines[j].startsWith("####"); j++) {
                    body.add(lines[j]);
                }
                return String.join("\n", body);
            }
        }
        throw new IllegalArgumentException(path + " has no section '" + title + "'");
    }
}
