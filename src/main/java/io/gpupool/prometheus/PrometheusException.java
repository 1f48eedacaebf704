package io.gpupool.prometheus;

/** A pull that could not be made: Prometheus unreachable, or refusing a query (its reason kept). */
public class PrometheusException extends RuntimeException {
    public PrometheusException(String message) {
        super(message);
    }
}
