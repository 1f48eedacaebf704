package io.gpupool.policy;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.stream.Stream;

class ReclamationRulesTest {
    @TestFactory
    Stream<DynamicTest> shippedReclamationScenariosPass() {
        return DefaultPolicy.scenarios("reclamation");
    }
}
