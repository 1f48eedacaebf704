package io.gpupool.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The shipped example fleet (policies-examples/fleet), the fixture most API tests start from. */
public final class ExampleFleet {
    public static final Path FILE = Path.of("policies-examples/fleet/enterprise-fleet.yaml");
    public static final int DEVICES = 324;
    public static final int NODES = 62;

    private ExampleFleet() {
    }

    public static String yaml() {
        try {
            return Files.readString(FILE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
