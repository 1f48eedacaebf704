package io.gpupool.request.scheduling;

import io.gpupool.domain.decision.DecisionAction;
import io.gpupool.domain.decision.LoggedDecision;
import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.fact.UsageWindow;
import io.gpupool.policy.perf.SyntheticFleet;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.testing.PolicyFiles;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A step's independent lease changes (a sweep's reclaim orders, the ends of grace periods nobody
 * waits for) stated a part at a time leave exactly what one write each leaves: the same model
 * (leases, queue, usage, leases under notice) and the same decision log, in the same order, over
 * synthetic fleets with every kind of order (TTL expiries, silent leases, idle leases, borrowed
 * leases, broken cards), parts of 7 and of the default size against parts of one; and a write that
 * fails is stated again one change at a time, so what came before it is made and it throws alone.
 */
class ChangesStatedInPartsTest {
    private static final Duration GRACE = Duration.ofSeconds(30);
    private static final CompiledPolicy STALE_AFTER_TWO_MINUTES = new PolicyCompiler().compile(
            RuleSet.draft(PolicyFiles.staleAfterTwoMinutes()).withVersion("candidate")).orThrow();

    private record Ended(PoolSnapshot model, List<LoggedDecision> logged, List<String> endedLater, Evaluation sweep) {
    }

    /** The sweep at {@code now}, then the grace periods ending one grace period later, {@code perWrite} changes a write. */
    private static Ended sweepThenGraceEnds(CompiledPolicy policy, SnapshotFacts fleet, Instant now, int perWrite) {
        ModelWriter.Uncommitted model = new ModelWriter.Uncommitted(fleet.snapshot());
        SnapshotFacts facts = SnapshotFacts.of(fleet.snapshot(), now, fleet.samples(), UsageWindow.DEFAULT);
        Evaluation sweep = ReclaimSweep.sweep(model, DefaultPolicy.ENGINE, policy, facts, GRACE, now, false, perWrite);
        List<String> ended = GracePeriods.endGracePeriods(model, null, now.plus(GRACE), perWrite);
        return new Ended(model.current(), List.copyOf(model.logged()), ended, sweep);
    }

    @Test
    void aSweepAndTheGracePeriodsItStartedEndAlikeInPartsAsOneWriteEach() {
        int compared = 0;
        for (int gpus : new int[]{400, 800}) {
            SnapshotFacts fleet = SyntheticFleet.facts(gpus, gpus * 3, 0.75);
            for (CompiledPolicy policy : List.of(DefaultPolicy.POLICY, STALE_AFTER_TWO_MINUTES)) {
                for (Instant now : List.of(SyntheticFleet.NOW, SyntheticFleet.NOW.plus(Duration.ofMinutes(3)))) {
                    Ended oneEach = sweepThenGraceEnds(policy, fleet, now, 1);
                    assertThat(oneEach.sweep().ok()).isTrue();
                    for (int perWrite : new int[]{7, WritesInParts.CHANGES_PER_WRITE}) {
                        String where = gpus + " GPUs, " + policy.version() + " at " + now + ", " + perWrite + " a write";
                        Ended inParts = sweepThenGraceEnds(policy, fleet, now, perWrite);
                        assertSameModel(inParts.model(), oneEach.model(), where);
                        assertThat(inParts.logged()).as(where + ": the decision log").isEqualTo(oneEach.logged());
                        assertThat(inParts.endedLater()).as(where + ": grace periods ended").isEqualTo(oneEach.endedLater());
                        compared++;
                    }
                    assertThat(oneEach.logged()).as("orders of every kind").isNotEmpty();
                }
            }
        }
        assertThat(compared).isEqualTo(16);
    }

    @Test
    void theFleetHasOrdersOfEveryKindAndPartsOfSeveral() {
        SnapshotFacts fleet = SyntheticFleet.facts(800, 2400, 0.75);
        Ended atNow = sweepThenGraceEnds(DefaultPolicy.POLICY, fleet, SyntheticFleet.NOW, WritesInParts.CHANGES_PER_WRITE);
        assertThat(atNow.logged()).extracting(LoggedDecision::action)
                .contains(DecisionAction.EXPIRE, DecisionAction.NOTICE, DecisionAction.RECLAIM);
        Ended stale = sweepThenGraceEnds(STALE_AFTER_TWO_MINUTES, fleet, SyntheticFleet.NOW.plus(Duration.ofMinutes(3)),
                WritesInParts.CHANGES_PER_WRITE);
        assertThat(stale.sweep().reclaimPlan().size()).as("more orders than one part").isGreaterThan(2 * WritesInParts.CHANGES_PER_WRITE);
        assertThat(stale.endedLater().size()).as("more grace periods ending than one part")
                .isGreaterThan(2 * WritesInParts.CHANGES_PER_WRITE);
    }

    @Test
    void aPartThatFailsIsStatedAgainOneChangeAWriteSoWhatCameBeforeTheFailureIsMade() {
        List<String> items = List.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j");
        for (int perWrite : new int[]{1, 3, 4, 10, 256}) {
            ModelWriter.Uncommitted model = new ModelWriter.Uncommitted(PoolSnapshot.empty());
            assertThatThrownBy(() -> WritesInParts.inParts(model, items, perWrite, part -> (before, changes) -> {
                for (String item : part) {
                    if (item.equals("f")) {
                        throw new IllegalStateException("refused: " + item);
                    }
                    changes.log(LoggedDecision.of(DecisionAction.NOTICE, null, item, "t", List.of(), null, null, item),
                            Instant.EPOCH);
                }
                return null;
            })).as(perWrite + " a write").isInstanceOf(IllegalStateException.class).hasMessage("refused: f");
            assertThat(model.logged()).extracting(LoggedDecision::leaseId).as(perWrite + " a write")
                    .containsExactly("a", "b", "c", "d", "e");
        }
    }

    private static void assertSameModel(PoolSnapshot actual, PoolSnapshot expected, String where) {
        assertThat(new ArrayList<>(actual.leases().keySet())).as(where + ": lease order").isEqualTo(new ArrayList<>(expected.leases().keySet()));
        assertThat(new LinkedHashMap<>(actual.leases())).as(where + ": leases").isEqualTo(new LinkedHashMap<>(expected.leases()));
        assertThat(new ArrayList<>(actual.queued().values())).as(where + ": queue").isEqualTo(new ArrayList<>(expected.queued().values()));
        assertThat(new LinkedHashMap<>(actual.underNotice())).as(where + ": under notice").isEqualTo(new LinkedHashMap<>(expected.underNotice()));
        assertThat(new LinkedHashMap<>(actual.promisedMilli())).as(where + ": promised").isEqualTo(new LinkedHashMap<>(expected.promisedMilli()));
        Map<String, Integer> used = new LinkedHashMap<>();
        Map<String, Integer> usedExpected = new LinkedHashMap<>();
        for (String device : expected.devices().keySet()) {
            used.put(device, actual.usedMilli(device));
            usedExpected.put(device, expected.usedMilli(device));
        }
        assertThat(used).as(where + ": milli-GPU held per device").isEqualTo(usedExpected);
        assertThat(actual.takenAt()).isEqualTo(expected.takenAt());
    }
}
