package io.gpupool.request;

import io.gpupool.domain.request.RequestState;
import io.gpupool.domain.request.GpuRequest;
import io.gpupool.domain.lease.WorkloadKind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static io.gpupool.testing.GpuRequests.copyOf;
import static io.gpupool.testing.GpuRequests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** A retry under the same Idempotency-Key is the same ask only if every field the caller chose matches. */
class SameAskTest {
    private static final Instant T0 = Instant.parse("2026-11-30T08:00:00Z");
    private static final GpuRequest ASKED = ask(r -> r);

    static Stream<Arguments> retries() {
        return Stream.of(
                arguments("the same fields, another id, state and time", true,
                        ask(r -> with(r, "other", RequestState.PLACED, T0.plusSeconds(5)))),
                arguments("the same models in another order", true,
                        ask(r -> copy(r, List.of("A100", "H100"), 40_000, 3600, true, "ANY"))),
                arguments("other models", false, ask(r -> copy(r, List.of("H100"), 40_000, 3600, true, "ANY"))),
                arguments("more GPU memory", false, ask(r -> copy(r, r.allowedModels(), 80_000, 3600, true, "ANY"))),
                arguments("another TTL", false, ask(r -> copy(r, r.allowedModels(), 40_000, 7200, true, "ANY"))),
                arguments("not preemptible", false, ask(r -> copy(r, r.allowedModels(), 40_000, 3600, false, "ANY"))),
                arguments("another topology", false, ask(r -> copy(r, r.allowedModels(), 40_000, 3600, true, "NODE"))));
    }

    @ParameterizedTest(name = "a retry with {0} is the same ask: {1}")
    @MethodSource("retries")
    void aRetryIsTheSameAskOnlyIfEveryChosenFieldMatches(String what, boolean same, GpuRequest retry) {
        assertThat(ASKED.sameAskAs(retry)).isEqualTo(same);
        assertThat(retry.sameAskAs(ASKED)).as("symmetric").isEqualTo(same);
    }

    private static GpuRequest ask(UnaryOperator<GpuRequest> change) {
        return change.apply(request("req-1").tenant("vision").idempotencyKey("key-1").kind(WorkloadKind.TRAINING).gpus(4)
                .models("H100", "A100").minMemoryMib(40_000).topology("ANY").priorityClass("high").preemptible(true)
                .ttlSeconds(3600).at(T0).build());
    }

    private static GpuRequest copy(GpuRequest r, List<String> models, long memory, long ttl, boolean preemptible,
                                   String topology) {
        return copyOf(r).models(models).minMemoryMib(memory).ttlSeconds(ttl).preemptible(preemptible).topology(topology)
                .build();
    }

    private static GpuRequest with(GpuRequest r, String id, RequestState state, Instant at) {
        return copyOf(r).id(id).state(state).priority(7).leaseId("lease-1").whyPending(null).at(at).build();
    }
}
