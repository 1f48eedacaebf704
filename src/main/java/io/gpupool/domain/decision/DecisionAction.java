package io.gpupool.domain.decision;

/**
 * What a logged decision did. NOTICE starts a grace period that ends in PREEMPT or RECLAIM.
 * INVENTORY: a node agent's report (or its silence) changed a device or node. AWAIT_APPROVAL:
 * approval rules hold a request for a person's yes, given by APPROVE, refused by DENY, or lapsed
 * (APPROVAL_EXPIRY).
 */
public enum DecisionAction {
    ADMIT, QUEUE, REJECT, PREEMPT, NOTICE, RECLAIM, EXPIRE, RELEASE, RENEW, CANCEL, INVENTORY,
    AWAIT_APPROVAL, APPROVE, DENY, APPROVAL_EXPIRY
}
