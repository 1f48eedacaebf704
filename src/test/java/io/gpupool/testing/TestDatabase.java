package io.gpupool.testing;

/** Which database this test JVM talks to. */
public final class TestDatabase {
    private TestDatabase() {
    }

    public static boolean isPostgres() {
        return "postgresql".equals(System.getProperty("gpupool.test.database"));
    }

    /**
     * A service with the example fleet on a database that outlives it, for tests that stop and start
     * it: an H2 file in {@code dir} (on PostgreSQL, the test database), emptied first when {@code clean}.
     */
    public static java.util.Map<String, Object> restartable(java.nio.file.Path dir, boolean clean) {
        java.util.Map<String, Object> p = new java.util.HashMap<>();
        if (!isPostgres()) {
            p.put("datasources.default.url", "jdbc:h2:file:" + dir.resolve("gpupool").toAbsolutePath()
                    + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH");
        }
        p.put("flyway.datasources.default.clean-schema", clean);
        p.put("gpupool.fleet-file", ExampleFleet.FILE.toString());
        p.put("micronaut.server.port", -1);
        return p;
    }
}
