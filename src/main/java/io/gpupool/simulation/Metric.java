package io.gpupool.simulation;

/**
 * One figure of a replay: {@code name} (e.g. {@code wait_p90_s}), the {@code group} it is over
 * ({@code all}, {@code tenant=nlp}, {@code class=high}, {@code kind=TRAINING}, {@code model=H100-SXM-80G},
 * {@code rule=…}) and its value (NaN: nothing to measure, e.g. no job of that group was placed).
 */
public record Metric(String name, String group, double value) {
    public String key() {
        return name + "|" + group;
    }
}
