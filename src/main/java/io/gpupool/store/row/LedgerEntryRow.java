package io.gpupool.store.row;

/**
 * One change of GPU time in the accounting ledger (table {@code ledger_entry}, migration V13): at
 * {@code atMs} (epoch milliseconds) the level of its attribution moves by {@code deltaMilli}. A
 * {@code LEASE} entry is one GPU or MIG instance of a lease starting (+ its milli) or ending (−, with
 * the lease's end state); a {@code DEVICE} entry is a card's capacity (±1000) in one health, pool and
 * model. Lease attributes are null on device entries.
 */
public record LedgerEntryRow(long atMs, String subject, int deltaMilli, String deviceId, String model, String poolId,
                             String leaseId, String tenantId, String kind, String priorityClass, String funding,
                             String lenderId, String state) {
    public static final String LEASE = "LEASE";
    public static final String DEVICE = "DEVICE";
    public static final String GUARANTEE = "GUARANTEE";
    public static final String BORROWED = "BORROWED";
}
