-- The accounting ledger's lease entries are no longer rows of their own (issue 19: the ledger's cost on
-- the lease path). A lease share's entries were a copy of the lease and share rows the same transaction
-- writes: +milli at the lease's start, -milli at its end, attributed by the lease. They are now read
-- from those rows (store.LedgerSource), so a lease event writes no ledger row and no ledger index entry;
-- what the ledger still stores is what the lease rows cannot say:
--   * lease_share.model: the card's model when the share started (a card's model can change later);
--   * lease.opened_seq / closed_seq: the writer's commit sequence of the transaction that started and
--     ended the lease (store.LedgerSequence: one writer, one transaction at a time, so a later commit
--     always has a higher number), which the rollup's cursor follows as it follows ledger_entry.id;
--   * lease.ledger_seq: the later of the two, the only one indexed, so the rollup finds the leases
--     that changed after its cursor without a second index entry per lease event.
-- Device capacity entries stay in ledger_entry.
ALTER TABLE lease ADD COLUMN opened_seq BIGINT;
ALTER TABLE lease ADD COLUMN closed_seq BIGINT;
ALTER TABLE lease ADD COLUMN ledger_seq BIGINT;
ALTER TABLE lease_share ADD COLUMN model VARCHAR(128);
ALTER TABLE ledger_rollup_cursor ADD COLUMN last_lease_seq BIGINT DEFAULT 0 NOT NULL;

-- The lease entries written so far move onto their lease rows. Sequence 0 is rolled up already (the
-- cursor starts at 0), 1 is not yet: an entry after the rollup's cursor stays pending, so the worker
-- adds it exactly once. A lease whose entries retention deleted was rolled up before they went.
UPDATE lease_share SET model = COALESCE(
    (SELECT MIN(e.model) FROM ledger_entry e WHERE e.subject = 'LEASE' AND e.lease_id = lease_share.lease_id
         AND e.device_id = lease_share.device_id),
    (SELECT d.model FROM device d WHERE d.id = lease_share.device_id));
UPDATE lease SET opened_seq = CASE
    WHEN EXISTS (SELECT 1 FROM ledger_entry e WHERE e.subject = 'LEASE' AND e.lease_id = lease.id AND e.delta_milli > 0
                 AND e.id > (SELECT c.last_entry_id FROM ledger_rollup_cursor c WHERE c.id = 1)) THEN 1
    WHEN EXISTS (SELECT 1 FROM ledger_entry e WHERE e.subject = 'LEASE' AND e.lease_id = lease.id AND e.delta_milli > 0) THEN 0
    WHEN ended_at IS NOT NULL AND CAST(FLOOR(EXTRACT(EPOCH FROM ended_at) * 1000) AS BIGINT)
         < (SELECT c.pruned_before_ms FROM ledger_rollup_cursor c WHERE c.id = 1)
         AND NOT EXISTS (SELECT 1 FROM ledger_entry e WHERE e.subject = 'LEASE' AND e.lease_id = lease.id) THEN 0
    END;
UPDATE lease SET closed_seq = CASE
    WHEN EXISTS (SELECT 1 FROM ledger_entry e WHERE e.subject = 'LEASE' AND e.lease_id = lease.id AND e.delta_milli < 0
                 AND e.id > (SELECT c.last_entry_id FROM ledger_rollup_cursor c WHERE c.id = 1)) THEN 1
    WHEN EXISTS (SELECT 1 FROM ledger_entry e WHERE e.subject = 'LEASE' AND e.lease_id = lease.id AND e.delta_milli < 0) THEN 0
    WHEN opened_seq = 0 AND ended_at IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM ledger_entry e WHERE e.subject = 'LEASE' AND e.lease_id = lease.id) THEN 0
    END;
UPDATE lease SET ledger_seq = CASE WHEN closed_seq IS NULL OR opened_seq > closed_seq THEN opened_seq ELSE closed_seq END
WHERE opened_seq IS NOT NULL OR closed_seq IS NOT NULL;
DELETE FROM ledger_entry WHERE subject = 'LEASE';
CREATE INDEX lease_ledger_seq ON lease (ledger_seq);
