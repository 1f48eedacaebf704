-- Rule-set versions are immutable once stored; the history is append-only and hash-chained.

CREATE TABLE rule_set_version (
    version        BIGINT PRIMARY KEY,
    content_hash   VARCHAR(64) NOT NULL UNIQUE,
    author         VARCHAR(256) NOT NULL,
    message        TEXT NOT NULL,
    created_at     TIMESTAMP WITH TIME ZONE NOT NULL,
    parent_version BIGINT REFERENCES rule_set_version (version),
    files          TEXT NOT NULL
);

CREATE TABLE policy_active (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    version      BIGINT NOT NULL REFERENCES rule_set_version (version),
    activated_at TIMESTAMP WITH TIME ZONE NOT NULL,
    activated_by VARCHAR(256) NOT NULL
);

CREATE TABLE policy_history (
    seq           BIGINT PRIMARY KEY,
    event         VARCHAR(32) NOT NULL,
    version       BIGINT,
    content_hash  VARCHAR(64),
    author        VARCHAR(256) NOT NULL,
    message       TEXT NOT NULL,
    at            TIMESTAMP WITH TIME ZONE NOT NULL,
    rules_added   TEXT NOT NULL,
    rules_removed TEXT NOT NULL,
    rules_changed TEXT NOT NULL,
    diff          TEXT NOT NULL,
    details       TEXT NOT NULL,
    prev_hash     VARCHAR(64) NOT NULL,
    record_hash   VARCHAR(64) NOT NULL UNIQUE
);
