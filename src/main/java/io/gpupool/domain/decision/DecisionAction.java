package io.gpupool.domain.decision;

/**
 * What a logged decision did. NOTICE starts a grace period that ends in PREEMPT or RECLAIM.
 * INVENTORY: a node agent's report (or its silence) changed a device or node.
 */
public enum DecisionAction {
    ADMIT, QUEUE, REJECT, PREEMPT, NOTICE, RECLAIM, EXPIRE, RELEASE, RENEW, CANCEL, INVENTORY
}
