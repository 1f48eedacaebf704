package io.gpupool.testing;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * Skips database tests in the PostgreSQL pass when the server cannot be reached, and says why. Each
 * surefire fork has its own database (pom.xml appends the fork number to the URL); it is created
 * here on first use, so a machine needs only the server, not one database per fork.
 */
public class DatabaseAvailability implements ExecutionCondition {
    private static Boolean reachable;

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (!TestDatabase.isPostgres()) {
            return ConditionEvaluationResult.enabled("running on embedded H2");
        }
        String url = System.getProperty("datasources.default.url");
        if (reachable == null) {
            reachable = canConnect(url) && databaseExists(url);
            System.out.println(reachable
                    ? "[gpupool] PostgreSQL pass: running database tests against " + url
                    : "[gpupool] PostgreSQL not reachable at " + url + ": PostgreSQL tests SKIPPED");
        }
        return reachable ? ConditionEvaluationResult.enabled("PostgreSQL reachable at " + url)
                : ConditionEvaluationResult.disabled("PostgreSQL not reachable at " + url + "; PostgreSQL tests skipped");
    }

    private static boolean databaseExists(String jdbcUrl) {
        // Two forks creating their databases at the same moment can meet on template1; the second try passes.
        for (int attempt = 1; ; attempt++) {
            try {
                return createIfAbsent(jdbcUrl);
            } catch (SQLException e) {
                if (attempt == 3) {
                    System.out.println("[gpupool] PostgreSQL refused to open or create the test database of " + jdbcUrl + ": " + e.getMessage());
                    return false;
                }
                try {
                    Thread.sleep(500L * attempt);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
    }

    private static boolean createIfAbsent(String jdbcUrl) throws SQLException {
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        String database = uri.getPath().substring(1);
        if (!database.matches("[A-Za-z0-9_]+")) {
            throw new IllegalArgumentException("a test database name is letters, digits and '_': " + database);
        }
        String server = "jdbc:postgresql://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort()) + "/postgres";
        String user = System.getProperty("datasources.default.username", "postgres");
        try (Connection connection = DriverManager.getConnection(server, user, System.getProperty("datasources.default.password", ""));
             var exists = connection.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            exists.setString(1, database);
            if (!exists.executeQuery().next()) {
                try (var create = connection.createStatement()) {
                    create.execute("CREATE DATABASE " + database);
                }
                System.out.println("[gpupool] PostgreSQL pass: created the test database " + database);
            }
            return true;
        }
    }

    private static boolean canConnect(String jdbcUrl) {
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort()), 2000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
