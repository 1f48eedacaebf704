package io.gpupool.policy.engine;

import io.gpupool.policy.DefaultPolicy;
import io.gpupool.policy.fact.FactsTracker;
import io.gpupool.policy.fact.RequestFact;
import io.gpupool.policy.fact.SnapshotFacts;
import io.gpupool.snapshot.PoolSnapshot;
import io.gpupool.testing.LeaseChurn;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Policy's answers remembered by what it saw ({@link EvaluationMemo}) equal a fresh evaluation:
 * over random lease churn, asked as a writer asks (facts from its tracker, the same requests again
 * on versions where nothing they read changed, and on versions where something did).
 */
class EvaluationMemoTest {
    private static final CompiledPolicy POLICY = DefaultPolicy.POLICY;
    private static final PolicyEngine ENGINE = DefaultPolicy.ENGINE;

    @ParameterizedTest(name = "seed {0}: remembered admissions and preemptions equal fresh ones at every step")
    @ValueSource(longs = {1, 2, 3, 4})
    void rememberedEvaluationsEqualFreshOnesAtEveryStep(long seed) {
        LeaseChurn churn = new LeaseChurn(seed);
        Random random = new Random(seed);
        EvaluationMemo memo = new EvaluationMemo(ENGINE);
        FactsTracker tracker = new FactsTracker();
        List<RequestFact> requests = requests(random);
        PoolSnapshot s = churn.fleet();
        for (int step = 0; step < 120; step++) {
            if (random.nextInt(3) > 0) {
                s = churn.step(s); // else the same model again, as a pass retrying on an unchanged one
            }
            SnapshotFacts facts = tracker.of(s);
            for (RequestFact request : requests) {
                String context = "seed " + seed + " step " + step + " " + request.requestId();
                assertThat(decided(memo.admit(POLICY, facts, request)))
                        .as("admission, " + context).isEqualTo(decided(ENGINE.admit(POLICY, facts, request)));
                Set<String> devices = random.nextBoolean() ? null : s.devices().keySet().stream()
                        .filter(d -> random.nextInt(3) == 0).collect(Collectors.toSet());
                assertThat(decided(memo.preempt(POLICY, facts, request, List.of("train"), List.of("train"), devices)))
                        .as("preemption, " + context)
                        .isEqualTo(decided(ENGINE.preempt(POLICY, facts, request, List.of("train"), List.of("train"), devices)));
            }
        }
    }

    @Test
    void theSameFactsAreAnsweredFromMemoryAndChangedFactsAreEvaluatedAgain() {
        LeaseChurn churn = new LeaseChurn(7);
        EvaluationMemo memo = new EvaluationMemo(ENGINE);
        FactsTracker tracker = new FactsTracker();
        PoolSnapshot s = churn.fleet();
        RequestFact request = new RequestFact("r1", "a", "TRAINING", 2, 1000, null, List.of(), 0, 1, null, true, 0, null, false);

        Evaluation first = memo.admit(POLICY, tracker.of(s), request);
        assertThat(memo.admit(POLICY, tracker.of(s), request)).isSameAs(first);

        RequestFact larger = new RequestFact("r1", "a", "TRAINING", 4, 1000, null, List.of(), 0, 1, null, true, 0, null, false);
        Evaluation again = memo.admit(POLICY, tracker.of(s), larger);
        assertThat(again).isNotSameAs(first);
        assertThat(decided(again)).isEqualTo(decided(ENGINE.admit(POLICY, tracker.of(s), larger)));
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void comparingOnlyTheMovingValuesAnAdmissionReadAnswersMoreFromMemoryAndDecidesTheSame(long seed) {
        LeaseChurn churn = new LeaseChurn(seed);
        Random random = new Random(seed);
        EvaluationMemo byReads = new EvaluationMemo(ENGINE);
        EvaluationMemo byEqualFacts = new EvaluationMemo(new PolicyEngine(EvaluationLimits.DEFAULT, false));
        FactsTracker tracker = new FactsTracker();
        List<RequestFact> requests = requests(random);
        PoolSnapshot s = churn.fleet();
        for (int step = 0; step < 120; step++) {
            s = churn.step(s);
            SnapshotFacts facts = tracker.of(s);
            for (RequestFact request : requests) {
                assertThat(decided(byReads.admit(POLICY, facts, request))).as("seed " + seed + " step " + step)
                        .isEqualTo(decided(byEqualFacts.admit(POLICY, facts, request)));
            }
        }

        assertThat(byReads.admissionsRemembered()).isGreaterThan(byEqualFacts.admissionsRemembered());
        assertThat(byReads.admissionsEvaluated() + byReads.admissionsRemembered())
                .isEqualTo(byEqualFacts.admissionsEvaluated() + byEqualFacts.admissionsRemembered());
    }

    @Test
    void aQueueDeeperThanTheDefaultRoomIsAnsweredFromMemoryOnceTheMemoKnowsItsSize() {
        LeaseChurn churn = new LeaseChurn(7);
        FactsTracker tracker = new FactsTracker();
        SnapshotFacts facts = tracker.of(churn.fleet());
        int queued = EvaluationMemo.ADMISSIONS + 100;
        List<RequestFact> queue = java.util.stream.IntStream.range(0, queued).mapToObj(i -> new RequestFact("q" + i, "a",
                "TRAINING", 2, 1000, null, List.of(), 0, 1, null, true, 0, null, false)).toList();

        // in queue order, twice, as two passes retry it: least recently used first out forgets each
        // answer just before it is asked again, unless the memo was told how many are queued (each
        // request's own answer: the queue is of one shape, which sharing would answer from the first)
        PolicyEngine ownAnswersOnly = new PolicyEngine(EvaluationLimits.DEFAULT, true, true, false);
        EvaluationMemo fixed = new EvaluationMemo(ownAnswersOnly);
        EvaluationMemo told = new EvaluationMemo(ownAnswersOnly);
        told.roomFor(queued);
        for (int pass = 0; pass < 2; pass++) {
            for (RequestFact request : queue) {
                fixed.admit(POLICY, facts, request);
                told.admit(POLICY, facts, request);
            }
        }

        assertThat(fixed.admissionsRemembered()).isZero();
        assertThat(told.admissionsRemembered()).isEqualTo(queued);
        assertThat(told.admissionsEvaluated()).isEqualTo(queued);
    }

    private static List<RequestFact> requests(Random random) {
        String[] tenants = {"a", "b", "c"};
        String[] kinds = {"TRAINING", "INFERENCE", "DEV", "EXPERIMENT"};
        return java.util.stream.IntStream.range(0, 6).mapToObj(i -> new RequestFact("r" + i, tenants[random.nextInt(3)],
                kinds[random.nextInt(kinds.length)], 1 + random.nextInt(4), 1000, null, List.of(), 0, 1, null,
                random.nextBoolean(), 0, null, false)).toList();
    }

    /** What an evaluation decided (not how long it took). */
    private static List<Object> decided(Evaluation e) {
        return List.of(e.policyVersion(), e.ok(), e.decisions(), e.firedRules());
    }
}
