package io.gpupool.replay;

import java.util.Map;

/**
 * What the chart shows for one workload: median unallocated curves of our runs and of the
 * published policies, by label (x = arrived % 0..130).
 */
record ChartData(String workload, Map<String, double[]> ours, Map<String, double[]> published) {
}
