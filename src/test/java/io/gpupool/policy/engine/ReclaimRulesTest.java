package io.gpupool.policy.engine;

import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
import io.gpupool.domain.tenancy.Quota;
import io.gpupool.domain.tenancy.Tenant;
import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.fact.UsageWindow;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.snapshot.PoolSnapshotBuilder;
import io.gpupool.testing.Fleets;
import io.gpupool.testing.Leases;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which rules can order a reclaim is read from the compiled consequences, and a sweep is shown unable
 * to reclaim only when no such rule has a fact for one of its patterns (the replay skips that sweep).
 */
class ReclaimRulesTest {
    private static final Instant NOW = Instant.parse("2026-03-02T12:00:00Z");
    private static final String HEADER = """
            package t;
            import io.gpupool.policy.fact.LeaseFact;
            import io.gpupool.policy.fact.DeviceFact;
            global io.gpupool.policy.decision.Decisions decisions;
            """;

    @Test
    void theDefaultPoliciesReclamationRulesAreTheOnesThatCanReclaim() {
        ReclaimRules rules = ReclaimRules.of(DefaultPolicy.POLICY, DefaultPolicy.ENGINE.limits());

        assertThat(rules.provable()).isTrue();
        assertThat(rules.names()).containsExactlyInAnyOrder("Lease on an unhealthy device is reclaimed",
                "Lease on a silent node is reclaimed after ten minutes",
                "Lease without a heartbeat for five minutes is reclaimed", "Lease past its TTL is reclaimed",
                "Training or experiment idle for an hour is reclaimed", "Dev lease idle for two hours is reclaimed",
                "Borrowed lease beyond the tenant's borrowing limit is reclaimed");
    }

    @Test
    void aSweepWhereEveryLeaseHeartbeatsAndNothingHasRunOutCannotReclaim() {
        ReclaimRules rules = ReclaimRules.of(DefaultPolicy.POLICY, DefaultPolicy.ENGINE.limits());

        assertThat(rules.cannotFire(facts(NOW.minusSeconds(299), null))).isTrue();
    }

    @Test
    void aLeaseWhoseHeartbeatIsOlderThanTheRulesThresholdLetsTheSweepReclaim() {
        ReclaimRules rules = ReclaimRules.of(DefaultPolicy.POLICY, DefaultPolicy.ENGINE.limits());

        assertThat(rules.cannotFire(facts(NOW.minusSeconds(301), null))).isFalse();
    }

    @Test
    void aLeaseWhoseTtlRanOutLetsTheSweepReclaim() {
        ReclaimRules rules = ReclaimRules.of(DefaultPolicy.POLICY, DefaultPolicy.ENGINE.limits());

        assertThat(rules.cannotFire(facts(NOW, NOW.plusSeconds(1)))).isTrue();
        assertThat(rules.cannotFire(facts(NOW, NOW))).isFalse();
    }

    @Test
    void aRuleThatReclaimsThroughAFunctionOfItsRuleSetCanReclaim() {
        ReclaimRules rules = ReclaimRules.of(compile("""
                function void takeBack(io.gpupool.policy.decision.Decisions d, LeaseFact l) {
                    d.reclaim(l, "IDLE", 1L, "VIA_FUNCTION", "through a function");
                }
                rule "Old lease goes through a function"
                when
                    $l : LeaseFact( runtimeSeconds > 100 )
                then
                    takeBack(decisions, $l);
                end
                rule "Devices are labelled"
                when
                    $d : DeviceFact()
                then
                    decisions.label($d, "seen", "SEEN", "every device");
                end
                """), DefaultPolicy.ENGINE.limits());

        assertThat(rules.names()).containsExactly("Old lease goes through a function");
        assertThat(rules.provable()).isTrue();
    }

    @Test
    void aConsequenceThatInsertsFactsLeavesNothingProvable() {
        ReclaimRules rules = ReclaimRules.of(compile("""
                rule "Inserts a fact of its own"
                when
                    $d : DeviceFact()
                then
                    insert(new String("x"));
                end
                rule "Stale lease"
                when
                    $l : LeaseFact( heartbeatAgeSeconds > 300 )
                then
                    decisions.reclaim($l, "STALE_HEARTBEAT", 1L, "STALE", "stale");
                end
                """), DefaultPolicy.ENGINE.limits());

        assertThat(rules.provable()).isFalse();
        assertThat(rules.cannotFire(facts(NOW, null))).isFalse();
    }

    @Test
    void aReclaimingRuleWithoutAPatternOnTheSweepsFactsIsNeverShownUnableToFire() {
        ReclaimRules rules = ReclaimRules.of(compile("""
                rule "Reclaims from a fact it takes from elsewhere"
                when
                    $l : LeaseFact() from java.util.Collections.emptyList()
                then
                    decisions.reclaim($l, "IDLE", 1L, "FROM", "from");
                end
                """), DefaultPolicy.ENGINE.limits());

        assertThat(rules.provable()).isFalse();
        assertThat(rules.cannotFire(facts(NOW, null))).isFalse();
    }

    @Test
    void theDefaultAndTieredPoliciesReclaimingRulesReadNoRequest() {
        assertThat(ReclaimRules.of(DefaultPolicy.POLICY, DefaultPolicy.ENGINE.limits()).readNoRequest()).isTrue();
        assertThat(ReclaimRules.readNoRequest(DefaultPolicy.POLICY)).isTrue();
    }

    @Test
    void aReclaimingRuleThatMatchesAPendingRequestReadsOne() {
        assertThat(ReclaimRules.of(compile("""
                rule "Reclaims for whoever waits"
                when
                    $r : io.gpupool.policy.fact.RequestFact()
                    $l : LeaseFact( tenantId != $r.tenantId )
                then
                    decisions.reclaim($l, "IDLE", 1L, "WAITER", "someone waits");
                end
                """), DefaultPolicy.ENGINE.limits()).readNoRequest()).isFalse();
    }

    @Test
    void aReclaimingRuleThatMatchesAnAdmissionDecisionUnderNotReadsOne() {
        assertThat(ReclaimRules.of(compile("""
                rule "Reclaims while nothing is admitted"
                when
                    $l : LeaseFact( heartbeatAgeSeconds > 300 )
                    not io.gpupool.policy.decision.AdmissionDecision()
                then
                    decisions.reclaim($l, "STALE_HEARTBEAT", 1L, "STALE", "stale");
                end
                """), DefaultPolicy.ENGINE.limits()).readNoRequest()).isFalse();
    }

    @Test
    void aReclaimingRuleWithAnEvalOrAnActivationGroupIsNotShownToReadNoRequest() {
        assertThat(ReclaimRules.of(compile("""
                rule "Reclaims after an eval"
                when
                    $l : LeaseFact( heartbeatAgeSeconds > 300 )
                    eval( $l.heartbeatAgeSeconds() > 600 )
                then
                    decisions.reclaim($l, "STALE_HEARTBEAT", 1L, "STALE", "stale");
                end
                """), DefaultPolicy.ENGINE.limits()).readNoRequest()).isFalse();
        assertThat(ReclaimRules.of(compile("""
                rule "Stale lease"
                when
                    $l : LeaseFact( heartbeatAgeSeconds > 300 )
                then
                    decisions.reclaim($l, "STALE_HEARTBEAT", 1L, "STALE", "stale");
                end
                rule "A device, in the same activation group"
                activation-group "one"
                when
                    $d : DeviceFact()
                then
                    decisions.label($d, "seen", "SEEN", "every device");
                end
                """), DefaultPolicy.ENGINE.limits()).readNoRequest()).isFalse();
    }

    @Test
    void aReclaimingRuleOnLeasesAloneReadsNoRequest() {
        assertThat(ReclaimRules.of(compile("""
                rule "Stale lease"
                when
                    $l : LeaseFact( heartbeatAgeSeconds > 300 )
                    not DeviceFact( health == "UNHEALTHY" )
                then
                    decisions.reclaim($l, "STALE_HEARTBEAT", 1L, "STALE", "stale");
                end
                """), DefaultPolicy.ENGINE.limits()).readNoRequest()).isTrue();
    }

    @Test
    void theDefaultAndExamplePoliciesReclaimingRulesReadNoDevice() {
        assertThat(ReclaimRules.of(DefaultPolicy.POLICY, DefaultPolicy.ENGINE.limits()).readNoDevice()).isTrue();
        assertThat(ReclaimRules.readNoDevice(DefaultPolicy.POLICY)).isTrue();
        for (String example : List.of("tiered-enterprise", "inference-first", "research-lab-fair-share")) {
            CompiledPolicy policy = new PolicyCompiler().compile(io.gpupool.policy.ruleset.RuleSetLayering.resolve(
                    io.gpupool.policy.ruleset.RuleSetFiles.fromDirectory(java.nio.file.Path.of("policies-examples", example),
                            example).files()).ruleSet().withVersion(example)).orThrow();
            assertThat(ReclaimRules.readNoDevice(policy)).as(example).isTrue();
        }
    }

    @Test
    void aReclaimingRuleWithADevicePatternAtAnyDepthReadsDevices() {
        ReclaimRules underNot = ReclaimRules.of(compile("""
                rule "Stale lease while no device is unhealthy"
                when
                    $l : LeaseFact( heartbeatAgeSeconds > 300 )
                    not DeviceFact( health == "UNHEALTHY" )
                then
                    decisions.reclaim($l, "STALE_HEARTBEAT", 1L, "STALE", "stale");
                end
                """), DefaultPolicy.ENGINE.limits());
        assertThat(underNot.readNoRequest()).isTrue();
        assertThat(underNot.readNoDevice()).isFalse();
        assertThat(ReclaimRules.of(compile("""
                rule "Lease on a hot card"
                when
                    $d : DeviceFact( usedMilli > 900 )
                    $l : LeaseFact( deviceIds contains $d.deviceId )
                then
                    decisions.reclaim($l, "IDLE", 1L, "HOT", "hot");
                end
                """), DefaultPolicy.ENGINE.limits()).readNoDevice()).isFalse();
    }

    @Test
    void aConsequenceCannotReadWhatOtherRulesDecided() {
        // What leaving the devices (and the requests) out of a sweep relies on: a reclaiming consequence
        // cannot see the tiers, labels or admissions other rules decided from them.
        Compilation compiled = new PolicyCompiler().compile(new RuleSet("t1", Map.of("t/t.drl", HEADER + """
                rule "Stale lease, unless a device was tiered"
                when
                    $l : LeaseFact( heartbeatAgeSeconds > 300 )
                then
                    if (decisions.recorded().isEmpty()) {
                        decisions.reclaim($l, "STALE_HEARTBEAT", 1L, "STALE", "stale");
                    }
                end
                """)));
        assertThat(compiled.succeeded()).isFalse();
        assertThat(compiled.messages()).anySatisfy(m -> assertThat(m.toString()).contains("Decisions.recorded()"));
    }

    @Test
    void aTenantOverItsBorrowingLimitOnlyInTheElasticPoolCannotHaveALeaseReclaimedForIt() {
        // Each of the default borrowing rule's patterns has a fact (research borrows past its limit,
        // in the elastic pool; the training pool is not elastic; research's lease is borrowed), but
        // its join asks for the non-elastic pool the tenant borrows in, and there is none.
        ReclaimRules rules = ReclaimRules.of(DefaultPolicy.POLICY, DefaultPolicy.ENGINE.limits());
        SnapshotFacts facts = borrowing("elastic");

        assertThat(rules.cannotFire(facts)).isTrue();
        assertThat(DefaultPolicy.ENGINE.sweep(DefaultPolicy.POLICY, facts, List.of()).reclaimPlan()).isEmpty();
    }

    @Test
    void aTenantOverItsBorrowingLimitInANonElasticPoolLetsTheSweepReclaim() {
        ReclaimRules rules = ReclaimRules.of(DefaultPolicy.POLICY, DefaultPolicy.ENGINE.limits());
        SnapshotFacts facts = borrowing("training");

        assertThat(rules.cannotFire(facts)).isFalse();
        assertThat(DefaultPolicy.ENGINE.sweep(DefaultPolicy.POLICY, facts, List.of()).reclaimPlan())
                .extracting(o -> o.leaseId()).containsExactly("borrowed");
    }

    @Test
    void aJoinBetweenTwoLeasesIsCheckedOnTheFactsEachPatternLetsThrough() {
        CompiledPolicy policy = compile("""
                rule "A stale lease takes its tenant's other leases with it"
                when
                    $s : LeaseFact( heartbeatAgeSeconds > 300 )
                    $l : LeaseFact( tenantId == $s.tenantId, leaseId != $s.leaseId )
                then
                    decisions.reclaim($l, "STALE_HEARTBEAT", 0L, "STALE_TENANT", "its tenant went silent");
                end
                """);
        ReclaimRules rules = ReclaimRules.of(policy, DefaultPolicy.ENGINE.limits());

        assertThat(rules.cannotFire(leases(Map.of("stale", "a", "fresh", "b")))).as("no other lease of the silent tenant").isTrue();
        assertThat(rules.cannotFire(leases(Map.of("stale", "a", "fresh", "a")))).as("the silent tenant's other lease").isFalse();
    }

    @Test
    void aNotOverOnePatternBlocksTheChoicesItForbids() {
        CompiledPolicy policy = compile("""
                rule "A silent tenant's other leases, unless another tenant is silent for days"
                when
                    $s : LeaseFact( heartbeatAgeSeconds > 300 )
                    not ( LeaseFact( tenantId != $s.tenantId, heartbeatAgeSeconds > 100000 ) )
                    $l : LeaseFact( tenantId == $s.tenantId, leaseId != $s.leaseId )
                then
                    decisions.reclaim($l, "STALE_HEARTBEAT", 0L, "STALE_TENANT", "its tenant went silent");
                end
                """);
        ReclaimRules rules = ReclaimRules.of(policy, DefaultPolicy.ENGINE.limits());

        assertThat(rules.cannotFire(leases(Map.of("stale", "a", "fresh", "a")))).isFalse();
        SnapshotFacts blocked = leases(Map.of("stale", "a", "fresh", "a", "ancient", "b"));
        assertThat(rules.cannotFire(blocked)).as("another tenant silent for days").isTrue();
        assertThat(DefaultPolicy.ENGINE.sweep(policy, blocked, List.of()).reclaimPlan()).isEmpty();
    }

    @Test
    void aNotWithAConstraintTheProofCannotCheckIsLeftOut() {
        // The "not" compares with a pending request, a pattern the proof does not bind: it could
        // block, or not; left out, the rule may fire.
        CompiledPolicy policy = compile("""
                import io.gpupool.policy.fact.RequestFact;
                rule "A silent tenant's other leases, unless a request of another tenant waits"
                when
                    $s : LeaseFact( heartbeatAgeSeconds > 300 )
                    $r : RequestFact( )
                    not ( LeaseFact( tenantId != $r.tenantId, heartbeatAgeSeconds > 100000 ) )
                    $l : LeaseFact( tenantId == $s.tenantId, leaseId != $s.leaseId )
                then
                    decisions.reclaim($l, "STALE_HEARTBEAT", 0L, "STALE_TENANT", "its tenant went silent");
                end
                """);
        ReclaimRules rules = ReclaimRules.of(policy, DefaultPolicy.ENGINE.limits());

        assertThat(rules.cannotFire(leases(Map.of("stale", "a", "fresh", "a", "ancient", "b")))).isFalse();
    }

    @Test
    void aTeamBorrowingWithinItsOrganisationsIdleGuaranteeHasNothingReclaimed() {
        // The default borrowing rule's "not": nlp borrows past its own limit (0), but its
        // organisation research stays within its guarantee in that pool.
        ReclaimRules rules = ReclaimRules.of(DefaultPolicy.POLICY, DefaultPolicy.ENGINE.limits());
        SnapshotFacts withinOrg = teamBorrowing(4);
        SnapshotFacts beyondOrg = teamBorrowing(0);

        assertThat(rules.cannotFire(withinOrg)).isTrue();
        assertThat(DefaultPolicy.ENGINE.sweep(DefaultPolicy.POLICY, withinOrg, List.of()).reclaimPlan()).isEmpty();
        assertThat(rules.cannotFire(beyondOrg)).isFalse();
        assertThat(DefaultPolicy.ENGINE.sweep(DefaultPolicy.POLICY, beyondOrg, List.of()).reclaimPlan())
                .extracting(o -> o.leaseId()).containsExactly("borrowed");
    }

    /** Team nlp of organisation research (guaranteed {@code orgGuarantee} GPUs in training) holds one borrowed GPU there. */
    private static SnapshotFacts teamBorrowing(int orgGuarantee) {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(NOW)
                .pool(new Pool("training", "training", PoolTier.TRAINING, null, false, null))
                .tenant(new Tenant("research", "research", null, null)).tenant(new Tenant("nlp", "nlp", "research", null))
                .quota(new Quota("research", "training", Quota.ANY_MODEL, orgGuarantee, 0, 0));
        Fleets.nodeOf(b, Fleets.node("n"), 4, g -> g.model("H100-SXM-80G").pool("training").lastHeartbeat(NOW));
        b.lease(Leases.lease("borrowed").tenant("nlp").pool("training").share("n-gpu0", 1000).borrowed(true)
                .createdAt(NOW.minusSeconds(600)).lastHeartbeat(NOW).build());
        return SnapshotFacts.of(b.build(), NOW, List.of(), UsageWindow.DEFAULT);
    }

    @Test
    void whereverTheProofSaysNoRuleCanFireTheSweepReclaimsNothing() {
        // Random small fleets of borrowing teams, silent holders and elastic capacity, under the
        // default rules and two join rules of our own: the proof is sound wherever it speaks, and it
        // speaks (both ways) often enough to be worth its cost.
        List<CompiledPolicy> policies = List.of(DefaultPolicy.POLICY, compile("""
                rule "A silent tenant's other leases, unless another tenant is silent for days"
                when
                    $s : LeaseFact( heartbeatAgeSeconds > 300 )
                    not ( LeaseFact( tenantId != $s.tenantId, heartbeatAgeSeconds > 100000 ) )
                    $l : LeaseFact( tenantId == $s.tenantId, leaseId != $s.leaseId, borrowed )
                then
                    decisions.reclaim($l, "STALE_HEARTBEAT", 0L, "STALE_TENANT", "its tenant went silent");
                end
                """));
        java.util.Random random = new java.util.Random(23);
        int proven = 0;
        int unproven = 0;
        for (int round = 0; round < 300; round++) {
            SnapshotFacts facts = randomFleet(random);
            for (CompiledPolicy policy : policies) {
                boolean cannotFire = ReclaimRules.of(policy, DefaultPolicy.ENGINE.limits()).cannotFire(facts);
                List<?> plan = DefaultPolicy.ENGINE.sweep(policy, facts, List.of()).reclaimPlan();
                if (cannotFire) {
                    assertThat(plan).as("round " + round + ", " + policy.version()).isEmpty();
                    proven++;
                } else {
                    unproven++;
                }
            }
        }
        assertThat(proven).isGreaterThan(100);
        assertThat(unproven).isGreaterThan(100);
    }

    /**
     * Organisation research (a random guarantee in training) with teams nlp and vision (nlp with a
     * random guarantee and borrowing limit), a training and an elastic pool, and up to six training
     * leases of random holders, pools, borrowing and heartbeat ages.
     */
    private static SnapshotFacts randomFleet(java.util.Random random) {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(NOW)
                .pool(new Pool("training", "training", PoolTier.TRAINING, null, false, null))
                .pool(new Pool("elastic", "elastic", PoolTier.ELASTIC, null, true, null))
                .tenant(new Tenant("research", "research", null, null)).tenant(new Tenant("nlp", "nlp", "research", null))
                .tenant(new Tenant("vision", "vision", "research", null))
                .quota(new Quota("research", "training", Quota.ANY_MODEL, random.nextInt(5), 0, 0))
                .quota(new Quota("nlp", "training", Quota.ANY_MODEL, random.nextInt(2), random.nextInt(2), 0));
        Fleets.nodeOf(b, Fleets.node("n"), 6, g -> g.model("H100-SXM-80G").pool("training").lastHeartbeat(NOW));
        Fleets.nodeOf(b, Fleets.node("m"), 6, g -> g.model("L40S").pool("elastic").lastHeartbeat(NOW));
        String[] tenants = {"nlp", "vision", "research"};
        long[] silentFor = {0, 200, 400, 200_000};
        for (int i = 0; i < random.nextInt(7); i++) {
            boolean elastic = random.nextBoolean();
            b.lease(Leases.lease("l" + i).tenant(tenants[random.nextInt(3)]).pool(elastic ? "elastic" : "training")
                    .share((elastic ? "m-gpu" : "n-gpu") + i, 1000).borrowed(random.nextBoolean())
                    .createdAt(NOW.minusSeconds(300_000)).lastHeartbeat(NOW.minusSeconds(silentFor[random.nextInt(4)])).build());
        }
        return SnapshotFacts.of(b.build(), NOW, List.of(), UsageWindow.DEFAULT);
    }

    /**
     * Tenant research (its own organisation, no quota: borrowing limit 0) holds one borrowed GPU in
     * {@code pool}, one of a training pool and an elastic pool; its heartbeat is fresh.
     */
    private static SnapshotFacts borrowing(String pool) {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(NOW)
                .pool(new Pool("training", "training", PoolTier.TRAINING, null, false, null))
                .pool(new Pool("elastic", "elastic", PoolTier.ELASTIC, null, true, null))
                .tenant(new Tenant("research", "research", null, null));
        Fleets.nodeOf(b, Fleets.node("n"), 2, g -> g.model("H100-SXM-80G").pool("training").lastHeartbeat(NOW));
        Fleets.nodeOf(b, Fleets.node("m"), 2, g -> g.model("L40S").pool("elastic").lastHeartbeat(NOW));
        String card = pool.equals("training") ? "n-gpu0" : "m-gpu0";
        b.lease(Leases.lease("borrowed").tenant("research").pool(pool).share(card, 1000).borrowed(true)
                .createdAt(NOW.minusSeconds(600)).lastHeartbeat(NOW).build());
        return SnapshotFacts.of(b.build(), NOW, List.of(), UsageWindow.DEFAULT);
    }

    /**
     * One lease per entry (lease id to tenant) on its own H100; "stale" was last heard ten minutes
     * ago, "ancient" over two days ago, the others now.
     */
    private static SnapshotFacts leases(Map<String, String> tenantByLease) {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(NOW)
                .pool(new Pool("training", "training", PoolTier.TRAINING, null, false, null));
        Fleets.nodeOf(b, Fleets.node("n"), tenantByLease.size(), g -> g.model("H100-SXM-80G").pool("training").lastHeartbeat(NOW));
        int card = 0;
        for (Map.Entry<String, String> e : new TreeMap<>(tenantByLease).entrySet()) {
            Instant heard = switch (e.getKey()) {
                case "stale" -> NOW.minusSeconds(600);
                case "ancient" -> NOW.minusSeconds(200_000);
                default -> NOW;
            };
            b.lease(Leases.lease(e.getKey()).tenant(e.getValue()).pool("training").share("n-gpu" + card++, 1000)
                    .createdAt(NOW.minusSeconds(3600)).lastHeartbeat(heard).build());
        }
        return SnapshotFacts.of(b.build(), NOW, List.of(), UsageWindow.DEFAULT);
    }

    /** One training lease on one of two H100s, last heard at {@code heartbeat}, expiring at {@code expires}. */
    private static SnapshotFacts facts(Instant heartbeat, Instant expires) {
        PoolSnapshotBuilder b = PoolSnapshot.builder().version(1).takenAt(NOW)
                .pool(new Pool("training", "training", PoolTier.TRAINING, null, false, null));
        Fleets.nodeOf(b, Fleets.node("n"), 2, g -> g.model("H100-SXM-80G").pool("training").lastHeartbeat(NOW));
        b.lease(Leases.lease("l1").tenant("t").pool("training").share("n-gpu0", 1000).createdAt(NOW.minusSeconds(3600))
                .lastHeartbeat(heartbeat).expiresAt(expires).build());
        return SnapshotFacts.of(b.build(), NOW, List.of(), UsageWindow.DEFAULT);
    }

    private static CompiledPolicy compile(String rules) {
        return new PolicyCompiler().compile(new RuleSet("t1", Map.of("t/t.drl", HEADER + rules))).orThrow();
    }
}
