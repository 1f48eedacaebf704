package io.gpupool.policy.engine;

import io.gpupool.policy.engine.PolicyMessage.Severity;
import io.gpupool.policy.engine.PolicyMessage.Stage;
import io.gpupool.policy.sandbox.RuleBudget;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The limits of one evaluation scale with its fact count (a 10-fact admission and a 60k-fact sweep
 * share one setting), and the small value types that report on a compile or an evaluation say what
 * an operator needs: severity, stage, place.
 */
class EvaluationLimitsTest {
    @Test
    void theFiringCapGrowsWithTheFactsOnTopOfTheBase() {
        EvaluationLimits limits = new EvaluationLimits(10_000, 20, Duration.ofSeconds(10));

        assertThat(limits.maxFirings(0)).isEqualTo(10_000);
        assertThat(limits.maxFirings(1)).isEqualTo(10_020);
        assertThat(limits.maxFirings(60_000)).isEqualTo(1_210_000);
    }

    @Test
    void aFiringCapBeyondWhatAnIntHoldsStaysJustBelowTheLargestInt() {
        EvaluationLimits limits = new EvaluationLimits(Integer.MAX_VALUE - 10, 1_000, Duration.ofSeconds(1));

        assertThat(limits.maxFirings(5_000_000)).isEqualTo(Integer.MAX_VALUE - 1);
        assertThat(limits.maxFirings(0)).isEqualTo(Integer.MAX_VALUE - 10);
    }

    @Test
    void theMemoryBudgetGrowsWithTheFactsAndTheTimeBudgetDoesNot() {
        EvaluationLimits limits = new EvaluationLimits(100, 1, Duration.ofMillis(250), 1_000_000, 4_096);

        assertThat(limits.budget(0)).isEqualTo(new RuleBudget.Limits(Duration.ofMillis(250), 1_000_000));
        assertThat(limits.budget(10)).isEqualTo(new RuleBudget.Limits(Duration.ofMillis(250), 1_040_960));
    }

    @Test
    void theDefaultLimitsAllowTenThousandFiringsTwentyPerFactTenSecondsAndAQuarterGigabyte() {
        EvaluationLimits limits = EvaluationLimits.DEFAULT;

        assertThat(limits.maxFirings(100)).isEqualTo(12_000);
        assertThat(limits.maxDuration()).isEqualTo(Duration.ofSeconds(10));
        assertThat(limits.budget(0).maxAllocatedBytes()).isEqualTo(256L * 1024 * 1024);
        assertThat(limits.budget(1).maxAllocatedBytes()).isEqualTo(256L * 1024 * 1024 + 32 * 1024);
    }

    @Test
    void aMessageWithAFileSaysWhereAndOneWithoutSaysOnlyWhat() {
        PolicyMessage located = PolicyMessage.error(Stage.COMPILE, "quota/quota-verdicts.drl", 12, 7, "Unknown field");
        PolicyMessage general = new PolicyMessage(Stage.FLEET, Severity.WARNING, null, 0, 0, "3 unknown cards");

        assertThat(located).hasToString("ERROR COMPILE quota/quota-verdicts.drl:12:7 Unknown field");
        assertThat(general).hasToString("WARNING FLEET 3 unknown cards");
    }

    @Test
    void onlyAnErrorIsAnError() {
        assertThat(PolicyMessage.error(Stage.SANDBOX, "a.drl", 1, 1, "x").isError()).isTrue();
        assertThat(new PolicyMessage(Stage.LINT, Severity.WARNING, "a.drl", 1, 1, "x").isError()).isFalse();
        assertThat(new PolicyMessage(Stage.TEST, Severity.INFO, "a.drl", 1, 1, "x").isError()).isFalse();
    }

    @Test
    void aFailedCompilationHasNoPolicyAndOrThrowListsItsMessages() {
        PolicyMessage error = PolicyMessage.error(Stage.COMPILE, "t/t.drl", 4, 9, "Unable to resolve DeviceFacts");
        List<PolicyMessage> messages = new ArrayList<>(List.of(error));
        Compilation failed = new Compilation(Optional.empty(), messages);
        messages.clear();

        assertThat(failed.succeeded()).isFalse();
        assertThat(failed.messages()).containsExactly(error);
        assertThatThrownBy(failed::orThrow).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Rule set does not compile")
                .hasMessageContaining("t/t.drl:4:9 Unable to resolve DeviceFacts");
    }
}
