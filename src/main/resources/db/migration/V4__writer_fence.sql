-- Fencing for the single writer (store.WriterLock, PostgreSQL): the instance that takes the writer
-- lock raises the epoch; every write transaction confirms, holding a share lock on this row until it
-- commits, that the epoch is still its own. A writer that lost its lock without noticing yet thus
-- cannot commit once another instance has taken over, and the taker-over waits for a transaction the
-- old writer has already confirmed before it raises the epoch and loads the state.
CREATE TABLE writer_fence (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    epoch  BIGINT NOT NULL,
    holder VARCHAR(256),
    since  TIMESTAMP WITH TIME ZONE
);
INSERT INTO writer_fence (id, epoch) VALUES (1, 0);
