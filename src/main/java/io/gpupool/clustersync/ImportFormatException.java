package io.gpupool.clustersync;

import java.util.List;

/**
 * A cluster document that cannot be read: every problem found, each naming its place
 * ({@code items[2] (node gpu-07): status.capacity["nvidia.com/gpu"]: must be >= 0, was -1}), so the
 * document is refused whole and its author can find each line.
 */
public class ImportFormatException extends RuntimeException {
    private final List<String> problems;

    public ImportFormatException(List<String> problems) {
        super(problems.isEmpty() ? "invalid document" : problems.get(0));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
