package io.gpupool.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The allocation invariants, read straight from the database tables (plain SQL, so the same check
 * runs inside the service's transaction, on a child JVM's database file, or on PostgreSQL).
 *
 * <ul>
 *   <li><b>No over-booking</b>: per device, the milli of shares held by ACTIVE or PREEMPTING leases
 *       sums to at most 1000, and at most one of those shares is a whole GPU.</li>
 *   <li><b>Quota</b> (all-models quotas only, the rows the shipped quota rules read): in every pool
 *       that is not of tier ELASTIC, a tenant T with a {@code "*"} quota, none of whose descendants
 *       has its own {@code "*"} quota in that pool, holds with its whole subtree at most
 *       (guaranteed + borrowing limit) GPUs. A tenant with no {@code "*"} quota in that pool, on
 *       itself or on any ancestor, holds no lease of its own there. Not checked: per-model quotas (they govern
 *       only requests pinned to one model, and the load mix pins none), ELASTIC pools (always borrowable by design), and trees where a
 *       team has its own guarantee under an org that also has one (the two guarantees may stack).</li>
 *   <li><b>Accounting</b>: every request is PLACED with an existing lease of its own, QUEUED,
 *       REJECTED or CANCELLED; every lease belongs to an existing request; an idempotency key names
 *       at most one request per tenant.</li>
 * </ul>
 */
public final class PoolInvariants {
    /** What the database holds: leases holding devices (id → "STATE shares") and queued request ids. */
    public record Held(Map<String, String> leases, Set<String> queued) {
    }

    private PoolInvariants() {
    }

    /** Every broken invariant, one readable line each; empty when all hold. */
    public static List<String> violations(Connection c) throws SQLException {
        List<String> broken = new ArrayList<>();
        overBooking(c, broken);
        quota(c, broken);
        accounting(c, broken);
        return broken;
    }

    public static Held held(Connection c) throws SQLException {
        Map<String, TreeSet<String>> shares = new TreeMap<>();
        Map<String, String> states = new TreeMap<>();
        for (String[] r : rows(c, "SELECT l.id, l.state, s.device_id, s.milli FROM lease l JOIN lease_share s ON s.lease_id = l.id "
                + "WHERE l.state IN ('ACTIVE', 'PREEMPTING')")) {
            states.put(r[0], r[1]);
            shares.computeIfAbsent(r[0], k -> new TreeSet<>()).add(r[2] + "=" + r[3]);
        }
        Map<String, String> leases = new TreeMap<>();
        states.forEach((id, state) -> leases.put(id, describe(state, shares.get(id))));
        Set<String> queued = new TreeSet<>();
        rows(c, "SELECT id FROM gpu_request WHERE state = 'QUEUED'").forEach(r -> queued.add(r[0]));
        return new Held(leases, queued);
    }

    /** The same "STATE shares" text {@link #held} produces, for comparing with the in-memory snapshot. */
    public static String describe(String state, Set<String> deviceEqualsMilli) {
        return state + " " + new TreeSet<>(deviceEqualsMilli);
    }

    private static void overBooking(Connection c, List<String> broken) throws SQLException {
        for (String[] r : rows(c, "SELECT s.device_id, SUM(s.milli), SUM(CASE WHEN s.milli = 1000 THEN 1 ELSE 0 END), COUNT(*) "
                + "FROM lease_share s JOIN lease l ON l.id = s.lease_id WHERE l.state IN ('ACTIVE', 'PREEMPTING') "
                + "GROUP BY s.device_id")) {
            long milli = Long.parseLong(r[1]);
            long whole = Long.parseLong(r[2]);
            if (milli > 1000 || (whole > 0 && Long.parseLong(r[3]) > 1)) {
                broken.add("device " + r[0] + " over-booked: " + milli + " milli in " + r[3] + " shares (" + whole + " whole)");
            }
        }
    }

    private static void quota(Connection c, List<String> broken) throws SQLException {
        for (QuotaUse u : quotaUse(c)) {
            if (u.limitMilli() == null && u.heldMilli() > 0) {
                broken.add("tenant " + u.tenant() + " holds " + u.heldMilli() + " milli in pool " + u.pool()
                        + " without any quota there");
            } else if (u.limitMilli() != null && u.heldMilli() > u.limitMilli()) {
                broken.add("tenant " + u.tenant() + " holds " + u.heldMilli() + " milli in pool " + u.pool()
                        + " with its teams; guarantee + borrowing limit is " + u.limitMilli());
            }
        }
    }

    /**
     * What the quota check compares, per tenant and non-ELASTIC pool: the subtree's held milli against
     * 1000 × (guaranteed + borrowing limit) where the tenant has a checkable {@code "*"} quota, or the
     * tenant's own held milli against no limit (null) where nobody in its lineage has one.
     */
    public record QuotaUse(String tenant, String pool, long heldMilli, Long limitMilli) {
    }

    public static List<QuotaUse> quotaUse(Connection c) throws SQLException {
        Map<String, String> parent = new HashMap<>();
        rows(c, "SELECT id, parent_id FROM tenant").forEach(r -> parent.put(r[0], r[1]));
        Map<String, String> tier = new TreeMap<>();
        rows(c, "SELECT id, tier FROM pool").forEach(r -> tier.put(r[0], r[1]));
        Map<String, Long> limitMilli = new HashMap<>();
        rows(c, "SELECT tenant_id, pool_id, guaranteed_gpus + borrowing_limit FROM quota WHERE model = '*'")
                .forEach(r -> limitMilli.put(r[0] + "/" + r[1], 1000L * Long.parseLong(r[2])));
        Map<String, Long> ownMilli = new HashMap<>();
        Map<String, Long> subtreeMilli = new HashMap<>();
        for (String[] r : rows(c, "SELECT l.tenant_id, l.pool_id, SUM(s.milli) FROM lease l JOIN lease_share s ON s.lease_id = l.id "
                + "WHERE l.state IN ('ACTIVE', 'PREEMPTING') GROUP BY l.tenant_id, l.pool_id")) {
            ownMilli.put(r[0] + "/" + r[1], Long.parseLong(r[2]));
            for (String t = r[0]; t != null; t = parent.get(t)) {
                subtreeMilli.merge(t + "/" + r[1], Long.parseLong(r[2]), Long::sum);
            }
        }
        List<QuotaUse> uses = new ArrayList<>();
        for (String pool : tier.keySet()) {
            if ("ELASTIC".equals(tier.get(pool))) {
                continue;
            }
            for (String tenant : new TreeSet<>(parent.keySet())) {
                String key = tenant + "/" + pool;
                if (limitMilli.containsKey(key) && !descendantHasQuota(tenant, pool, parent, limitMilli)) {
                    uses.add(new QuotaUse(tenant, pool, subtreeMilli.getOrDefault(key, 0L), limitMilli.get(key)));
                } else if (!lineageHasQuota(tenant, pool, parent, limitMilli)) {
                    uses.add(new QuotaUse(tenant, pool, ownMilli.getOrDefault(key, 0L), null));
                }
            }
        }
        return uses;
    }

    private static boolean descendantHasQuota(String tenant, String pool, Map<String, String> parent, Map<String, Long> quota) {
        for (String t : parent.keySet()) {
            for (String a = parent.get(t); a != null; a = parent.get(a)) {
                if (a.equals(tenant) && quota.containsKey(t + "/" + pool)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean lineageHasQuota(String tenant, String pool, Map<String, String> parent, Map<String, Long> quota) {
        for (String t = tenant; t != null; t = parent.get(t)) {
            if (quota.containsKey(t + "/" + pool)) {
                return true;
            }
        }
        return false;
    }

    private static void accounting(Connection c, List<String> broken) throws SQLException {
        Set<String> states = Set.of("PLACED", "QUEUED", "REJECTED", "CANCELLED", "ENDED");
        Set<String> holding = Set.of("ACTIVE", "PREEMPTING");
        Map<String, String[]> leases = new HashMap<>();
        rows(c, "SELECT id, request_id, state FROM lease").forEach(r -> leases.put(r[0], r));
        Set<String> requests = new HashSet<>();
        for (String[] r : rows(c, "SELECT id, state, lease_id FROM gpu_request")) {
            requests.add(r[0]);
            if (!states.contains(r[1])) {
                broken.add("request " + r[0] + " is in state " + r[1]);
            }
            if ("PLACED".equals(r[1]) && (r[2] == null || !leases.containsKey(r[2]) || !r[0].equals(leases.get(r[2])[1]))) {
                broken.add("request " + r[0] + " is PLACED but its lease " + r[2] + " does not exist or is not its own");
            } else if ("PLACED".equals(r[1]) && !holding.contains(leases.get(r[2])[2])) {
                broken.add("request " + r[0] + " is PLACED but its lease " + r[2] + " is " + leases.get(r[2])[2]);
            }
            if ("ENDED".equals(r[1]) && (r[2] == null || !leases.containsKey(r[2]) || holding.contains(leases.get(r[2])[2]))) {
                broken.add("request " + r[0] + " is ENDED but its lease " + r[2] + " is missing or still holds GPUs");
            }
        }
        for (String[] l : leases.values()) {
            if (!requests.contains(l[1])) {
                broken.add("lease " + l[0] + " belongs to no request (" + l[1] + ")");
            }
        }
        for (String[] r : rows(c, "SELECT tenant_id, idempotency_key, COUNT(*) FROM gpu_request WHERE idempotency_key IS NOT NULL "
                + "GROUP BY tenant_id, idempotency_key HAVING COUNT(*) > 1")) {
            broken.add("idempotency key " + r[1] + " of " + r[0] + " produced " + r[2] + " requests");
        }
    }

    /** All rows of a query as strings (NULL stays null). */
    public static List<String[]> rows(Connection c, String sql) throws SQLException {
        List<String[]> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                String[] row = new String[n];
                for (int i = 0; i < n; i++) {
                    row[i] = rs.getString(i + 1);
                }
                out.add(row);
            }
        }
        return out;
    }
}
