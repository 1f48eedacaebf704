package io.gpupool.request.preemption;

import io.gpupool.testing.GpuRequests;
import io.gpupool.domain.request.BlockedBy;
import io.gpupool.domain.request.WhyPending;
import io.gpupool.domain.request.GpuRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class WideningGateTest {
    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    @ParameterizedTest(name = "new={0}, last whole-pool search {1} s ago (-1: never): may widen = {2}")
    @CsvSource({
            "true,  5,  true",   // a new request always may: it has never been searched for
            "false, -1, true",   // queued, never searched over the whole pool
            "false, 5,  false",  // searched 5 s ago, every 30 s
            "false, 30, true",   // exactly one interval ago
            "false, 45, true",
    })
    void aQueuedRequestWidensAtMostOncePerInterval(boolean isNew, long secondsAgo, boolean mayWiden) {
        Instant last = secondsAgo < 0 ? null : NOW.minusSeconds(secondsAgo);
        WideningGate gate = WideningGate.of(queued(last), isNew, NOW, Duration.ofSeconds(30));

        assertThat(gate.mayWiden()).isEqualTo(mayWiden);
    }

    @ParameterizedTest(name = "new={0}: a spent pass budget lets it widen = {1}")
    @CsvSource({
            "false, false", // a queued retry past its pass's budget waits for a later pass, its time kept
            "true,  true",  // a new request is not a pass's retry: the budget does not apply
    })
    void aSpentPassBudgetHoldsRetriesButNotNewRequests(boolean isNew, boolean mayWiden) {
        Instant last = NOW.minusSeconds(90);
        WideningGate gate = WideningGate.of(queued(last), isNew, NOW, Duration.ofSeconds(30), true);

        assertThat(gate.mayWiden()).isEqualTo(mayWiden);
        assertThat(gate.fullSearchDue()).isFalse();
        assertThat(gate.wideSearchAt()).isEqualTo(isNew ? null : last);
    }

    @ParameterizedTest(name = "widened now: {0}")
    @CsvSource({"true", "false"})
    void theRequestKeepsTheTimeOfItsLastWholePoolSearch(boolean widenedNow) {
        Instant last = NOW.minusSeconds(90);
        WideningGate gate = WideningGate.of(queued(last), false, NOW, Duration.ofSeconds(30));

        if (widenedNow) {
            gate.widened();
        }

        assertThat(gate.wideSearchAt()).isEqualTo(widenedNow ? NOW : last);
    }

    private static GpuRequest queued(Instant wideSearchAt) {
        WhyPending why = new WhyPending(BlockedBy.CAPACITY, null, "NO_FIT_GPU_CAPACITY", "no room", 0, "training", null,
                wideSearchAt);
        return GpuRequests.request("r").tenant("vision").priority(100).whyPending(why).at(NOW).build();
    }
}
