-- What the active policy derived for each device (issue 15): its tier and profile labels with the
-- rules that decided them, stored so the API shows and placement uses one thing. Derived again
-- whenever the inventory or the active policy changes. Portable across H2 and PostgreSQL.
CREATE TABLE device_profile (
    device_id      VARCHAR(160) PRIMARY KEY REFERENCES device (id),
    tier           VARCHAR(32),
    tier_rule      TEXT,
    tier_reason    VARCHAR(64),
    labels         TEXT NOT NULL,
    policy_version VARCHAR(32) NOT NULL,
    derived_at     TIMESTAMP WITH TIME ZONE NOT NULL
);

-- A request may require profile labels ("requires": ["training-fit", "nvlink"]): a JSON array.
ALTER TABLE gpu_request ADD COLUMN required_labels TEXT;
