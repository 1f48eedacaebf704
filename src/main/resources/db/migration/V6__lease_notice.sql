-- Why a lease is under notice, on the lease: the request it was preempted for and the deciding rule
-- (issue: the scheduler read the decision log to learn it). Portable across H2 and PostgreSQL.
ALTER TABLE lease ADD COLUMN notice_for VARCHAR(64);
ALTER TABLE lease ADD COLUMN notice_rules TEXT;
ALTER TABLE lease ADD COLUMN notice_policy_version VARCHAR(32);
ALTER TABLE lease ADD COLUMN notice_reason VARCHAR(64);

-- Leases under notice while this runs take theirs from their last NOTICE entry, as the scheduler did.
UPDATE lease SET
    notice_for = (SELECT d.request_id FROM decision_log d WHERE d.lease_id = lease.id AND d.action = 'NOTICE'
                  ORDER BY d.id DESC LIMIT 1),
    notice_rules = (SELECT d.rule_names FROM decision_log d WHERE d.lease_id = lease.id AND d.action = 'NOTICE'
                    ORDER BY d.id DESC LIMIT 1),
    notice_policy_version = (SELECT d.policy_version FROM decision_log d WHERE d.lease_id = lease.id
                             AND d.action = 'NOTICE' ORDER BY d.id DESC LIMIT 1),
    notice_reason = (SELECT d.reason_code FROM decision_log d WHERE d.lease_id = lease.id AND d.action = 'NOTICE'
                     ORDER BY d.id DESC LIMIT 1)
WHERE state = 'PREEMPTING';
-- A notice for the lease's own request is a reclaim, not a preemption for another request.
UPDATE lease SET notice_for = NULL WHERE notice_for = request_id;
