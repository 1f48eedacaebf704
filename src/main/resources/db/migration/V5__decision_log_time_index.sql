-- GET /decisions?since= pages the log in time order from the first entry at or after a time, by
-- cursor (at, id). Without this index the first page would scan the log from its very first entry,
-- and the log only grows. Measured on the REST load: no cost within noise (docs/performance.md).
CREATE INDEX decision_log_at ON decision_log (at, id);
