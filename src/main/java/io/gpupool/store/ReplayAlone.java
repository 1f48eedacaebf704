package io.gpupool.store;

/**
 * Thrown out of a batch's transaction (rolling it back) when a failure cannot be confined to one
 * mutation without a savepoint: a failed mutation whose rows already reached the database, or a
 * failed flush. The writer then replays the batch one mutation per transaction, which confines
 * every failure to the mutation that caused it.
 */
final class ReplayAlone extends RuntimeException {
    ReplayAlone(Throwable cause) {
        super("batch replayed one write at a time: " + cause, cause);
    }
}
