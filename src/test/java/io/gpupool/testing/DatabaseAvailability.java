package io.gpupool.testing;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;

/** Skips database tests in the PostgreSQL pass when the server cannot be reached, and says why. */
public class DatabaseAvailability implements ExecutionCondition {
    private static Boolean reachable;

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (!TestDatabase.isPostgres()) {
            return ConditionEvaluationResult.enabled("running on embedded H2");
        }
        String url = System.getProperty("datasources.default.url");
        if (reachable == null) {
            reachable = canConnect(url);
            System.out.println(reachable
                    ? "[gpupool] PostgreSQL pass: running database tests against " + url
                    : "[gpupool] PostgreSQL not reachable at " + url + ": PostgreSQL tests SKIPPED");
        }
        return reachable ? ConditionEvaluationResult.enabled("PostgreSQL reachable at " + url)
                : ConditionEvaluationResult.disabled("PostgreSQL not reachable at " + url + "; PostgreSQL tests skipped");
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
