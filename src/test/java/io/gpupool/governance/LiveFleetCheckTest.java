package io.gpupool.governance;

import io.gpupool.fleet.ShippedFleet;
import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.check.ValidationReport;
import io.gpupool.policy.engine.PolicyMessage;
import io.gpupool.policy.engine.PolicyMessage.Severity;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.testing.PolicyFiles;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The live-fleet check keeps what it found for a rule set's content on the published snapshot, and
 * checks again once anything was committed (a new snapshot) or for other content.
 */
class LiveFleetCheckTest {
    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    private static final ValidationReport VALID = new ValidationReport(List.of(), Optional.of(DefaultPolicy.POLICY),
            Optional.empty());
    private static final PolicyMessage FINDING = new PolicyMessage(Stage.COHERENCE, Severity.ERROR, "reclamation/reclamation.drl",
            3, 0, "Rule 'x' reclaims leases that 'y' just granted");
    private static final PolicyMessage STOPPED = new PolicyMessage(Stage.COHERENCE, Severity.INFO, null, 0, 0,
            "Coherence check stopped after 10 of 20 generated requests (budget 10 s)");

    private final AtomicReference<PoolSnapshot> published = new AtomicReference<>(ShippedFleet.snapshot(NOW));
    private final AtomicInteger checks = new AtomicInteger();
    private final AtomicReference<PolicyMessage> answer = new AtomicReference<>(FINDING);
    private final LiveFleetCheck check = new LiveFleetCheck(published::get, (policy, fleet, now) -> {
        checks.incrementAndGet();
        return List.of(answer.get());
    }, Clock.fixed(NOW, ZoneOffset.UTC));

    @Test
    void theSameRulesOnAnUnchangedFleetAreCheckedOnceAndAnsweredAlike() {
        List<PolicyMessage> first = check.check(DefaultPolicy.RULE_SET, VALID);
        List<PolicyMessage> again = check.check(DefaultPolicy.RULE_SET.withVersion("candidate"), VALID);

        assertThat(checks).hasValue(1);
        assertThat(again).isEqualTo(first).contains(FINDING);
    }

    @Test
    void aCommitSinceTheLastCheckChecksAgain() {
        check.check(DefaultPolicy.RULE_SET, VALID);
        published.set(ShippedFleet.snapshot(NOW));

        check.check(DefaultPolicy.RULE_SET, VALID);

        assertThat(checks).hasValue(2);
    }

    @Test
    void otherRulesAreCheckedOnTheirOwn() {
        check.check(DefaultPolicy.RULE_SET, VALID);

        check.check(RuleSet.draft(PolicyFiles.staleAfterTwoMinutes()).withVersion("candidate"), VALID);

        assertThat(checks).hasValue(2);
    }

    @Test
    void aCheckItsBudgetStoppedIsKeptAndStillSaysHowFarItGot() {
        answer.set(STOPPED);
        check.check(DefaultPolicy.RULE_SET, VALID);

        List<PolicyMessage> again = check.check(DefaultPolicy.RULE_SET, VALID);

        assertThat(checks).hasValue(1);
        assertThat(again).contains(STOPPED);
    }
}
