package io.gpupool.policy;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.stream.Stream;

class QuotaRulesTest {
    @TestFactory
    Stream<DynamicTest> shippedQuotaScenariosPass() {
        return DefaultPolicy.scenarios("quota");
    }
}
