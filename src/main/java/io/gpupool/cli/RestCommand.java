package io.gpupool.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Mixin;

import java.util.concurrent.Callable;

/**
 * A command that calls the service: the shared options, the context the CLI was started with
 * ({@link Cli} sets it when it creates the command), and printing in the chosen format.
 */
abstract class RestCommand implements Callable<Integer> {
    @Mixin
    Connection connection;

    CliContext context;

    @Override
    public Integer call() {
        return run(connection.client(context));
    }

    abstract int run(RestClient api);

    /** The server's JSON as it came, for {@code -o json}; else {@code table}. */
    int show(JsonNode json, Runnable table) {
        if (connection.json()) {
            printJson(json);
        } else {
            table.run();
        }
        return 0;
    }

    void printJson(JsonNode json) {
        try {
            context.out().println(RestClient.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(json));
            context.out().flush();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One record as "key: value" lines, for a single request, lease or verdict. */
    void printFields(JsonNode node, String... labelsAndPointers) {
        int width = 0;
        for (int i = 0; i < labelsAndPointers.length; i += 2) {
            width = Math.max(width, labelsAndPointers[i].length());
        }
        for (int i = 0; i < labelsAndPointers.length; i += 2) {
            String label = labelsAndPointers[i];
            context.out().println(label + ":" + " ".repeat(width - label.length() + 1) + Table.text(node.at(labelsAndPointers[i + 1])));
        }
        context.out().flush();
    }
}
