-- Rollups of the accounting ledger (issue 19 items 6 and 7; docs/reports.md, "Rollups"): per hour
-- and per UTC day, the sums a report needs of the ledger's signed changes, per attribution. Derived
-- from ledger_entry after it commits (accounting.LedgerRollups): the cursor names the last entry
-- rolled up and moves in the same transaction as the sums it added, so a crash adds nothing twice
-- and loses nothing; entries after the cursor are read raw by every report. Never a second source of
-- truth: any window can be deleted and summed again from the ledger (rebuild), and compared (check).
-- Attributes the ledger leaves null are '' here, so the key can be a primary key on both databases.
CREATE TABLE ledger_rollup (
    subject        VARCHAR(8) NOT NULL,
    span_ms        BIGINT NOT NULL,
    period_ms      BIGINT NOT NULL,
    tenant_id      VARCHAR(128) NOT NULL,
    pool_id        VARCHAR(128) NOT NULL,
    model          VARCHAR(128) NOT NULL,
    kind           VARCHAR(16) NOT NULL,
    priority_class VARCHAR(64) NOT NULL,
    funding        VARCHAR(16) NOT NULL,
    lender_id      VARCHAR(128) NOT NULL,
    -- DEVICE rows only (a card's health, and the card: the few cards ever out of service are found here)
    state          VARCHAR(16) NOT NULL,
    device_id      VARCHAR(160) NOT NULL,
    entries        BIGINT NOT NULL,
    -- Σ delta_milli, and Σ delta_milli × (at_ms − period_ms): GPU time to any later instant follows
    delta_milli    BIGINT NOT NULL,
    delta_offset   NUMERIC(38, 0) NOT NULL,
    PRIMARY KEY (subject, span_ms, period_ms, tenant_id, pool_id, model, kind, priority_class, funding, lender_id,
                 state, device_id)
);

CREATE TABLE ledger_rollup_cursor (
    id               INTEGER PRIMARY KEY,
    last_entry_id    BIGINT NOT NULL,
    -- Lease entries of leases that ended before this instant were deleted once rolled up (retention)
    pruned_before_ms BIGINT
);
-- From the first entry: the service rolls up the ledger written before this version on its own.
INSERT INTO ledger_rollup_cursor (id, last_entry_id, pruned_before_ms) VALUES (1, 0, NULL);

-- The entries of the few cards ever out of service, found through the rollup, fetched by card.
CREATE INDEX ledger_entry_device ON ledger_entry (device_id, at_ms);
