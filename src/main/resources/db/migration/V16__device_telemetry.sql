-- Device telemetry kept (issue 17 item 7, issue 19 item 2): what node agents measured, off the
-- inventory. Portable across H2 and PostgreSQL. Times are epoch milliseconds (BIGINT): 8 bytes a
-- row, and a 5-minute bucket is plain integer arithmetic on both databases.

-- Each agent node's last applied report: a routine report (one that changes nothing in the
-- inventory) moves only this row, not the node and device records (docs/performance.md, "Node
-- agent ingest"). The node's own agent columns hold the last report that changed the inventory.
CREATE TABLE node_presence (
    node_id          VARCHAR(255) PRIMARY KEY,
    sequence         BIGINT       NOT NULL,
    reported_at_ms   BIGINT       NOT NULL,
    interval_seconds INTEGER      NOT NULL,
    source           VARCHAR(64)
);

-- Raw samples, one per GPU (gpu_instance_id NULL) or MIG instance and report, kept for
-- gpupool.telemetry.raw-retention (default 24 h). metric: GR_ENGINE_ACTIVE, SM_ACTIVE, GPU_UTIL,
-- or NULL when the source measured no activity (framebuffer only). value in 0..1.
CREATE TABLE device_sample (
    device_id            VARCHAR(255) NOT NULL,
    gpu_instance_id      INTEGER,
    mig_profile          VARCHAR(32),
    at_ms                BIGINT       NOT NULL,
    metric               VARCHAR(16),
    activity             REAL,
    framebuffer_used_mib INTEGER
);
CREATE INDEX device_sample_device_at ON device_sample (device_id, at_ms);
CREATE INDEX device_sample_at ON device_sample (at_ms);

-- 5-minute rollups of the raw samples once they leave the raw window, per device, MIG instance
-- and metric, kept for gpupool.telemetry.rollup-retention (default 30 days).
CREATE TABLE device_sample_rollup (
    device_id                VARCHAR(255) NOT NULL,
    gpu_instance_id          INTEGER,
    mig_profile              VARCHAR(32),
    bucket_ms                BIGINT       NOT NULL,
    metric                   VARCHAR(16),
    activity_avg             REAL,
    activity_max             REAL,
    framebuffer_avg_mib      INTEGER,
    framebuffer_max_mib      INTEGER,
    sample_count             INTEGER      NOT NULL
);
CREATE INDEX device_sample_rollup_device_bucket ON device_sample_rollup (device_id, bucket_ms);
CREATE INDEX device_sample_rollup_bucket ON device_sample_rollup (bucket_ms);
