package io.gpupool.testing;

/** Which database this test JVM talks to. */
public final class TestDatabase {
    private TestDatabase() {
    }

    public static boolean isPostgres() {
        return "postgresql".equals(System.getProperty("gpupool.test.database"));
    }
}
