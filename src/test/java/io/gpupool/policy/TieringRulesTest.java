package io.gpupool.policy;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.stream.Stream;

class TieringRulesTest {
    @TestFactory
    Stream<DynamicTest> shippedTieringScenariosPass() {
        return DefaultPolicy.scenarios("tiering");
    }
}
