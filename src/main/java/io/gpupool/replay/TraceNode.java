package io.gpupool.replay;

/** One row of {@code openb_node_list_*.csv}: a node with {@code gpus} identical GPUs of {@code model}. */
public record TraceNode(String name, long cpuMilli, long memoryMib, int gpus, String model) {
}
