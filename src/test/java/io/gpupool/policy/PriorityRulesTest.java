package io.gpupool.policy;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.stream.Stream;

class PriorityRulesTest {
    @TestFactory
    Stream<DynamicTest> shippedPriorityScenariosPass() {
        return DefaultPolicy.scenarios("priority");
    }
}
