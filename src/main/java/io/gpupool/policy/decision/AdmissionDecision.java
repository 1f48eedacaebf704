package io.gpupool.policy.decision;

import java.util.List;

/** A request may use these pools, most preferred first; or it is rejected ({@code admitted} false, no pools). */
public record AdmissionDecision(String requestId, boolean admitted, List<String> pools, String ruleName,
                                String policyVersion, String reasonCode, String message) implements Decision {
    public AdmissionDecision {
        pools = pools == null ? List.of() : List.copyOf(pools);
    }

    @Override
    public String subject() {
        return requestId;
    }
}
