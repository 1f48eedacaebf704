package io.gpupool.policy.decision;

/** A device carries a profile label such as training-fit, inference-fit, shareable, nvlink or rdma. */
public record ProfileLabel(String deviceId, String label, String ruleName, String policyVersion,
                           String reasonCode, String message) implements Decision {
    @Override
    public String subject() {
        return deviceId;
    }

    @Override
    public String key() {
        return deviceId + "/" + label;
    }
}
