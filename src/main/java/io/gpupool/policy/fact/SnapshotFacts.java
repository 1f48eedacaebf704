package io.gpupool.policy.fact;

import io.gpupool.domain.lease.UsageSample;
import io.gpupool.domain.inventory.Device;
import io.gpupool.domain.tenancy.Pool;
import io.gpupool.snapshot.PoolSnapshot;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;

/**
 * The policy facts of one snapshot at one instant. Derived once and reused: per-request admission
 * only picks the request's lineage rows from here, so its cost does not grow with the fleet.
 * Device and lease facts (only the sweep needs them) are derived on first use. Immutable once
 * built and safe to share across threads.
 */
public final class SnapshotFacts {
    private final PoolSnapshot snapshot;
    private final Instant now;
    private final Map<String, List<UsageSample>> samplesByLease;
    private final UsageWindow window;
    private final List<PoolFact> pools;
    private final Map<String, TenantFact> tenants;
    private final Map<String, List<TenantUsageFact>> usageByTenant;
    private final PoolLeaseFacts poolLeases;
    private volatile List<DeviceFact> devices;
    private volatile List<LeaseFact> leases;
    private volatile Map<String, List<String>> children;
    /**
     * Each tenant's {@link #ancestorGuarantees}, worked out on first use. Shared by every facts
     * built on these very tenants and usage rows (they are all it reads), so the queued requests of
     * one tenant, retried over many versions of the model between two changes to its usage, get
     * one list (and their memo finds the very objects it saw).
     */
    private final Map<String, List<AncestorGuaranteeFact>> guarantees;

    private SnapshotFacts(PoolSnapshot snapshot, Instant now, Map<String, List<UsageSample>> samplesByLease,
                          UsageWindow window) {
        this.snapshot = snapshot;
        this.now = now;
        this.samplesByLease = samplesByLease;
        this.window = window;
        this.tenants = TenantFacts.resolve(snapshot);
        this.usageByTenant = TenantFacts.usage(UsageLedger.of(snapshot, tenants), snapshot, tenants);
        this.pools = PoolFacts.of(snapshot).summarise(snapshot, tenants, usageByTenant);
        this.poolLeases = null;
        this.guarantees = new ConcurrentHashMap<>();
    }

    /**
     * Facts from parts a {@link FactsTracker} kept up to date: no usage samples, and ages counted at
     * the snapshot's instant truncated to the second (rules see whole seconds anyway), so lease
     * facts can be reused across the versions of one second.
     */
    SnapshotFacts(PoolSnapshot snapshot, Map<String, TenantFact> tenants,
                  Map<String, List<TenantUsageFact>> usageByTenant, List<PoolFact> pools, PoolLeaseFacts poolLeases) {
        this(snapshot, tenants, usageByTenant, pools, poolLeases, null);
    }

    /**
     * As above; where {@code previous} stands on these very tenants and usage rows, its tenants'
     * ancestor guarantees (which read nothing else) are this one's too.
     */
    SnapshotFacts(PoolSnapshot snapshot, Map<String, TenantFact> tenants,
                  Map<String, List<TenantUsageFact>> usageByTenant, List<PoolFact> pools, PoolLeaseFacts poolLeases,
                  SnapshotFacts previous) {
        this.guarantees = previous != null && previous.tenants == tenants && previous.usageByTenant == usageByTenant
                ? previous.guarantees : new ConcurrentHashMap<>();
        this.children = previous != null && previous.tenants == tenants ? previous.children : null;
        this.snapshot = snapshot;
        this.poolLeases = poolLeases;
        this.now = evaluationSecond(snapshot);
        this.samplesByLease = Map.of();
        this.window = UsageWindow.DEFAULT;
        this.tenants = tenants;
        this.usageByTenant = usageByTenant;
        this.pools = pools;
    }

    private SnapshotFacts(SnapshotFacts parts, Instant now, Map<String, List<UsageSample>> samplesByLease,
                          UsageWindow window) {
        this.snapshot = parts.snapshot;
        this.now = now;
        this.samplesByLease = samplesByLease;
        this.window = window;
        this.tenants = parts.tenants;
        this.usageByTenant = parts.usageByTenant;
        this.pools = parts.pools;
        this.poolLeases = null;
        this.guarantees = parts.guarantees;
        this.children = parts.children;
    }

    /**
     * The same snapshot's facts at {@code now} over {@code samples}: equal to
     * {@code of(snapshot(), now, samples, window)}, reusing these tenants, usage rows and pool
     * summaries (none depends on the instant or on usage samples), so a {@link FactsTracker}'s facts
     * give a sweep's at the cost of its device and lease facts alone.
     */
    public SnapshotFacts at(Instant now, Collection<UsageSample> samples, UsageWindow window) {
        return new SnapshotFacts(this, now, byLease(samples), window);
    }

    /**
     * {@link #at(Instant, Collection, UsageWindow)} over samples already grouped by lease: each list
     * holds its key's samples only (in any order; oldest first is cheapest). A caller that keeps its
     * samples per lease (the replay does) saves regrouping every sample at every sweep. The lists
     * must not change while these facts are in use.
     */
    public SnapshotFacts at(Instant now, Map<String, List<UsageSample>> samplesByLease, UsageWindow window) {
        return new SnapshotFacts(this, now, samplesByLease, window);
    }

    /**
     * The facts of {@code tracked}'s snapshot at this one's instant, usage samples and window: equal
     * to {@code of(tracked.snapshot(), now(), samples(), window())}. Its tenants, usage rows and pool
     * summaries are {@code tracked}'s (a {@link FactsTracker}'s, kept up to date by what changed; none
     * depends on the instant or the samples), and a lease's fact is this one's wherever what it is
     * derived from is the same in both snapshots ({@link LeaseFacts#reusing}): after a few grace
     * periods end, a sweep derives the facts of the leases they touched, not of the whole fleet.
     */
    public SnapshotFacts movedTo(SnapshotFacts tracked) {
        SnapshotFacts moved = new SnapshotFacts(tracked, now, samplesByLease, window);
        List<LeaseFact> mine = leases;
        if (mine != null) {
            moved.leases = LeaseFacts.reusing(moved.snapshot, now, moved.tenants, samplesByLease, window,
                    snapshot, tenants, mine);
        }
        return moved;
    }

    /** Facts at the snapshot's own instant, without usage samples. */
    public static SnapshotFacts of(PoolSnapshot snapshot) {
        return of(snapshot, snapshot.takenAt(), List.of(), UsageWindow.DEFAULT);
    }

    public static SnapshotFacts of(PoolSnapshot snapshot, Instant now, Collection<UsageSample> samples,
                                   UsageWindow window) {
        return new SnapshotFacts(snapshot, now, byLease(samples), window);
    }

    /** {@code of(snapshot, now, samples, window)} over samples already grouped by lease (see {@link #at(Instant, Map, UsageWindow)}). */
    public static SnapshotFacts of(PoolSnapshot snapshot, Instant now, Map<String, List<UsageSample>> samplesByLease,
                                   UsageWindow window) {
        return new SnapshotFacts(snapshot, now, samplesByLease, window);
    }

    private static Map<String, List<UsageSample>> byLease(Collection<UsageSample> samples) {
        Map<String, List<UsageSample>> byLease = new HashMap<>();
        for (UsageSample s : samples) {
            byLease.computeIfAbsent(s.leaseId(), k -> new ArrayList<>()).add(s);
        }
        return byLease;
    }

    public PoolSnapshot snapshot() { return snapshot; }
    public Instant now() { return now; }
    public List<PoolFact> pools() { return pools; }
    public UsageWindow window() { return window; }

    /** The usage samples these facts were derived from (to re-derive at another instant). */
    public List<UsageSample> samples() {
        List<UsageSample> all = new ArrayList<>();
        samplesByLease.values().forEach(all::addAll);
        return all;
    }

    public Collection<TenantFact> tenants() { return tenants.values(); }

    Map<String, List<TenantUsageFact>> usageByTenant() { return usageByTenant; }

    public List<TenantUsageFact> usage() {
        List<TenantUsageFact> all = new ArrayList<>();
        usageByTenant.values().forEach(all::addAll);
        return all;
    }

    public List<DeviceFact> devices() {
        List<DeviceFact> result = devices;
        if (result == null) {
            result = DeviceFacts.derive(snapshot, now);
            devices = result;
        }
        return result;
    }

    public List<LeaseFact> leases() {
        List<LeaseFact> result = leases;
        if (result == null) {
            result = LeaseFacts.derive(snapshot, now, tenants, samplesByLease, window);
            leases = result;
        }
        return result;
    }

    /** The small fact set of one admission: the request, its tenant lineage and their usage, all pools. */
    public List<Object> forAdmission(RequestFact request) {
        List<Object> facts = new ArrayList<>(16);
        facts.add(request);
        facts.addAll(pools);
        TenantFact tenant = tenants.get(request.tenantId());
        if (tenant != null) {
            addTenantWithUsage(facts, tenant);
            facts.addAll(ancestorGuarantees(tenant));
            for (String ancestor : tenant.ancestors()) {
                TenantFact parent = tenants.get(ancestor);
                if (parent != null) {
                    addTenantWithUsage(facts, parent);
                }
            }
        }
        return facts;
    }

    /**
     * Admission facts restricted to the pools the request may still use, plus their running
     * leases: what preemption rules need to name victims for one request, without the whole fleet.
     * Callers ask only once the allocator has placed the request in none of {@code pools}.
     */
    public List<Object> forPreemption(RequestFact request, Collection<String> pools) {
        return forPreemption(request, pools, pools, null);
    }

    /**
     * As {@link #forPreemption(RequestFact, Collection)}, with only the leases of {@code victimPools}
     * that hold one of {@code devices} (every lease when null: the allocator's word on which cards
     * could make room), plus every other lease of their gangs, so a gang rule still sees the whole gang.
     */
    public List<Object> forPreemption(RequestFact request, Collection<String> pools, Collection<String> victimPools,
                                      Set<String> devices) {
        // Only the pools the request could still be placed in: a pool it may not use (over quota,
        // or excluded by the caller) must neither host victims nor count as "has room".
        // They are also pools the allocator found no placement in (that is why victims are wanted):
        // rules asking canFitNow must get the allocator's answer, not free totals blind to fragmentation.
        List<Object> facts = forPreemptionWithoutLeases(request, pools);
        List<LeaseFact> kept = new ArrayList<>(leasesOf(victimPools, devices));
        Set<String> gangs = new HashSet<>();
        for (LeaseFact lease : kept) {
            if (lease.gangId() != null) {
                gangs.add(lease.gangId());
            }
        }
        if (!gangs.isEmpty() && devices != null) {
            Set<String> ids = new HashSet<>();
            kept.forEach(l -> ids.add(l.leaseId()));
            leasesOf(victimPools, null).stream().filter(l -> l.gangId() != null && gangs.contains(l.gangId())
                    && !ids.contains(l.leaseId())).forEach(kept::add);
        }
        facts.addAll(kept);
        return facts;
    }

    /**
     * The facts {@link #forPreemption(RequestFact, Collection, Collection, Set)} hands policy before its
     * leases, in the same order: the request, its lineage and their usage, and the pools it may still
     * use, none of which has room for it.
     */
    public List<Object> forPreemptionWithoutLeases(RequestFact request, Collection<String> pools) {
        List<Object> facts = forAdmission(request);
        facts.removeIf(f -> f instanceof PoolFact p && !pools.contains(p.poolId()));
        facts.replaceAll(f -> f instanceof PoolFact p ? p.withoutPlacementFor(request.requestId()) : f);
        return facts;
    }

    /**
     * Whether {@code proof} shows that the victim search {@link #forPreemption} would hand policy for
     * {@code request} in {@code pool} alone, asking about {@code devices} (every lease of the pool when
     * null), names nobody, without deriving that search's facts ({@code decided}: what policy decided
     * about the request in that search before naming anyone, where known; null otherwise): the proof's judgement of the pool's
     * leases is kept in the per-pool cache and told of every lease that changes. False (not proven)
     * where these facts do not come from that cache.
     */
    public boolean victimSearchProven(String pool, Set<String> devices, RequestFact request, Collection<?> decided,
                                      LeaseProof proof) {
        return leases == null && poolLeases != null && poolLeases.proven(snapshot, pool, now, devices, request, decided, proof);
    }

    private List<LeaseFact> leasesOf(Collection<String> pools, Set<String> devices) {
        if (leases != null) {
            return leases.stream().filter(l -> pools.contains(l.poolId()) && holdsAny(l, devices)).toList();
        }
        // Derive only these pools' leases: one request's preemption must not pay for the whole fleet.
        if (poolLeases != null) {
            return poolLeases.facts(snapshot, pools, now, devices);
        }
        List<io.gpupool.domain.lease.Lease> inPools = snapshot.leases().values().stream().filter(l -> pools.contains(l.poolId())
                && (devices == null || l.shares().stream().anyMatch(s -> devices.contains(s.deviceId())))).toList();
        return LeaseFacts.derive(snapshot, inPools, now, tenants, samplesByLease, window);
    }

    static boolean holdsAny(LeaseFact lease, Set<String> devices) {
        if (devices == null) {
            return true;
        }
        List<String> held = lease.deviceIds();
        for (int i = 0, n = held.size(); i < n; i++) { // no stream: asked for every lease of every proof
            if (devices.contains(held.get(i))) {
                return true;
            }
        }
        return false;
    }

    public List<Object> forSweep(Collection<RequestFact> pending) {
        return forSweep(pending, true);
    }

    /**
     * As {@link #forSweep(Collection)}; {@code withDevices} false leaves the device facts out (and
     * does not derive them), for a sweep whose reclaim plan provably does not read them
     * ({@code ReclaimRules.readNoDevice}). The other facts keep their relative order.
     */
    public List<Object> forSweep(Collection<RequestFact> pending, boolean withDevices) {
        List<Object> facts = new ArrayList<>((withDevices ? devices().size() : 0) + leases().size() + 1024);
        if (withDevices) {
            facts.addAll(devices());
        }
        facts.addAll(leases());
        facts.addAll(pools);
        facts.addAll(tenants.values());
        usageByTenant.values().forEach(facts::addAll);
        Set<String> requesting = new HashSet<>();
        for (RequestFact r : pending) {
            TenantFact tenant = tenants.get(r.tenantId());
            if (tenant != null && requesting.add(tenant.tenantId())) {
                facts.addAll(ancestorGuarantees(tenant));
            }
        }
        facts.addAll(pending);
        return facts;
    }

    /** What {@code tenant} may use of each ancestor's guarantee, per pool, nearest ancestor first. */
    public List<AncestorGuaranteeFact> ancestorGuarantees(TenantFact tenant) {
        if (tenants.get(tenant.tenantId()) != tenant) { // not one of these facts' tenants: worked out, not kept
            return derivedGuarantees(tenant);
        }
        return guarantees.computeIfAbsent(tenant.tenantId(), id -> derivedGuarantees(tenant));
    }

    private List<AncestorGuaranteeFact> derivedGuarantees(TenantFact tenant) {
        Map<String, List<String>> index = children;
        if (index == null) {
            index = TenantFacts.children(tenants);
            children = index;
        }
        return List.copyOf(TenantFacts.ancestorGuarantees(tenant, index, usageByTenant));
    }

    private void addTenantWithUsage(List<Object> facts, TenantFact tenant) {
        facts.add(tenant);
        facts.addAll(usageByTenant.getOrDefault(tenant.tenantId(), List.of()));
    }

    /** The instant tracked facts count ages at: the snapshot's, truncated to the second. */
    static Instant evaluationSecond(PoolSnapshot snapshot) {
        return snapshot.takenAt().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    }

    /**
     * {@code Duration.between(from, to).getSeconds()} (whole seconds, rounded down; 0 when
     * {@code from} is null) without building the Duration: read for every usage sample of every
     * lease at every sweep.
     */
    static long secondsBetween(Instant from, Instant to) {
        if (from == null) {
            return 0;
        }
        long seconds = Math.subtractExact(to.getEpochSecond(), from.getEpochSecond());
        return to.getNano() < from.getNano() ? seconds - 1 : seconds;
    }

    static String poolTier(PoolSnapshot snapshot, String poolId) {
        Pool pool = poolId == null ? null : snapshot.pools().get(poolId);
        return pool == null ? null : pool.tier().name();
    }

    static long milli(int gpus) {
        return gpus * 1000L;
    }

    static String modelOf(PoolSnapshot snapshot, String deviceId) {
        Device d = snapshot.devices().get(deviceId);
        return d == null ? null : d.model();
    }
}
