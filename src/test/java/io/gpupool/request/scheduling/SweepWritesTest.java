package io.gpupool.request.scheduling;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.engine.CompiledPolicy;
import io.gpupool.policy.engine.Evaluation;
import io.gpupool.policy.engine.PolicyCompiler;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.policy.fact.UsageWindow;
import io.gpupool.policy.perf.SyntheticFleet;
import io.gpupool.policy.ruleset.RuleSet;
import io.gpupool.testing.PolicyFiles;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sweep that orders thousands of reclaims, and the end of the grace periods it started, are
 * stated in a few writes, not one write (one snapshot, one delta for derived inputs to follow) per
 * lease: a dry-run at scale built 96,000 snapshots for them (docs/performance.md, "Dry-run at
 * scale"). Each write that changes the model makes a model of the next version, so the versions
 * count the writes. What the writes leave is {@link ChangesStatedInPartsTest}'s.
 */
class SweepWritesTest {
    private static final Duration GRACE = Duration.ofSeconds(30);

    @Test
    void thousandsOfReclaimOrdersAndTheGracePeriodsTheyStartEndInAFewWrites() {
        CompiledPolicy staleAfterTwoMinutes = new PolicyCompiler().compile(
                RuleSet.draft(PolicyFiles.staleAfterTwoMinutes()).withVersion("candidate")).orThrow();
        SnapshotFacts fleet = SyntheticFleet.facts(1600, 6000, 0.75);
        Instant now = SyntheticFleet.NOW.plus(Duration.ofMinutes(3)); // every lease silent for over two minutes
        ModelWriter.Uncommitted model = new ModelWriter.Uncommitted(fleet.snapshot());
        long start = model.current().version();

        Evaluation sweep = ReclaimSweep.sweep(model, DefaultPolicy.ENGINE, staleAfterTwoMinutes,
                SnapshotFacts.of(fleet.snapshot(), now, fleet.samples(), UsageWindow.DEFAULT), GRACE, now);
        long afterSweep = model.current().version();
        List<String> ended = GracePeriods.endGracePeriods(model, null, now.plus(GRACE));
        long afterGrace = model.current().version();

        int orders = sweep.reclaimPlan().size();
        assertThat(orders).as("reclaim orders").isGreaterThan(5000);
        assertThat(ended.size()).as("grace periods ended").isGreaterThan(5000);
        assertThat(afterSweep - start).as("writes for %d reclaim orders", orders).isLessThanOrEqualTo(orders / 100);
        assertThat(afterGrace - afterSweep).as("writes for %d grace periods ending", ended.size())
                .isLessThanOrEqualTo(ended.size() / 100);
    }
}
