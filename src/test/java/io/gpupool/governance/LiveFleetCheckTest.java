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
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    @Test
    void aDryRunThatCannotWaitForTheCheckSaysItIsPendingAndTheNextOneGetsTheFindingsWithoutCheckingAgain() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        LiveFleetCheck slow = new LiveFleetCheck(published::get, (policy, fleet, now) -> {
            checks.incrementAndGet();
            await(release);
            return List.of(FINDING);
        }, Clock.fixed(NOW, ZoneOffset.UTC));

        List<PolicyMessage> first = LiveFleetCheck.within(slow.start(DefaultPolicy.RULE_SET, VALID), Duration.ofMillis(50));
        release.countDown();
        List<PolicyMessage> later = LiveFleetCheck.within(slow.start(DefaultPolicy.RULE_SET, VALID), Duration.ofSeconds(30));

        assertThat(LiveFleetCheck.isPending(first)).isTrue();
        assertThat(first).noneMatch(PolicyMessage::isError);
        assertThat(LiveFleetCheck.isPending(later)).isFalse();
        assertThat(later).containsExactly(FINDING);
        assertThat(checks).hasValue(1);
    }

    @Test
    void anUploadWhileADryRunsCheckOfTheSameRulesRunsJoinsItInsteadOfCheckingTwice() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        LiveFleetCheck slow = new LiveFleetCheck(published::get, (policy, fleet, now) -> {
            checks.incrementAndGet();
            started.countDown();
            await(release);
            return List.of(FINDING);
        }, Clock.fixed(NOW, ZoneOffset.UTC));
        slow.start(DefaultPolicy.RULE_SET, VALID);
        await(started);

        CompletableFuture<List<PolicyMessage>> upload = CompletableFuture.supplyAsync(() -> slow.check(DefaultPolicy.RULE_SET, VALID));
        Thread.sleep(50);
        release.countDown();

        assertThat(upload.get(30, TimeUnit.SECONDS)).containsExactly(FINDING);
        assertThat(checks).hasValue(1);
    }

    @Test
    void aCheckThatFailedIsNotKeptAndTheNextAskChecksAgain() {
        AtomicInteger calls = new AtomicInteger();
        LiveFleetCheck failingOnce = new LiveFleetCheck(published::get, (policy, fleet, now) -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("broken");
            }
            return List.of(FINDING);
        }, Clock.fixed(NOW, ZoneOffset.UTC));

        assertThatThrownBy(() -> failingOnce.check(DefaultPolicy.RULE_SET, VALID)).isInstanceOf(IllegalStateException.class);

        assertThat(failingOnce.check(DefaultPolicy.RULE_SET, VALID)).containsExactly(FINDING);
        assertThat(calls).hasValue(2);
    }

    @Test
    void aBurstOfDryRunsOfNewRulesQueuesAFewChecksAndSaysTheRestWereNotStarted() {
        CountDownLatch release = new CountDownLatch(1);
        LiveFleetCheck slow = new LiveFleetCheck(published::get, (policy, fleet, now) -> {
            checks.incrementAndGet();
            await(release);
            return List.of(FINDING);
        }, Clock.fixed(NOW, ZoneOffset.UTC));

        List<CompletableFuture<List<PolicyMessage>>> started = new java.util.ArrayList<>();
        for (int i = 0; i < 8; i++) { // one running, four waiting, three not started
            java.util.Map<String, String> files = new java.util.TreeMap<>(PolicyFiles.staleAfterTwoMinutes());
            String first = files.keySet().stream().filter(p -> p.endsWith(".drl")).findFirst().orElseThrow();
            files.put(first, files.get(first) + "\n// burst " + i + "\n");
            started.add(slow.start(RuleSet.draft(files).withVersion("candidate"), VALID));
        }
        List<List<PolicyMessage>> answers = started.stream().map(f -> LiveFleetCheck.within(f, Duration.ZERO)).toList();
        release.countDown();

        assertThat(answers).allMatch(LiveFleetCheck::isPending);
        assertThat(answers.stream().filter(a -> a.contains(LiveFleetCheck.BUSY))).hasSize(3);
        assertThat(started.subList(0, 5)).allSatisfy(f -> assertThat(f.join()).containsExactly(FINDING));
        assertThat(checks).hasValue(5);
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("timed out");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
