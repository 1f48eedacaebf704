package io.gpupool.policy;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.stream.Stream;

class PreemptionRulesTest {
    @TestFactory
    Stream<DynamicTest> shippedPreemptionScenariosPass() {
        return DefaultPolicy.scenarios("preemption");
    }
}
