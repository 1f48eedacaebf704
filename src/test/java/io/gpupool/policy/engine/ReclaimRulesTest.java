package io.gpupool.policy.engine;

import io.gpupool.domain.tenancy.Pool;
import io.gpupool.domain.tenancy.PoolTier;
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
