package io.gpupool.clustersync;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The shipped samples (src/test/resources/inventory-samples, attribution in each folder's PROVENANCE.md). */
public final class Samples {
    private Samples() {
    }

    public static String read(String path) {
        try (InputStream in = Samples.class.getResourceAsStream("/inventory-samples/" + path)) {
            if (in == null) {
                throw new IllegalArgumentException("no sample " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A NodeList of one node named {@code name} whose labels are the captured GFD label map {@code labelsFile}. */
    public static String nodeListWithLabels(String name, String labelsFile) {
        return """
                {"apiVersion": "v1", "kind": "List", "items": [
                  {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "%s", "labels": %s},
                   "status": {"conditions": [{"type": "Ready", "status": "True"}]}}
                ]}""".formatted(name, read(labelsFile));
    }
}
