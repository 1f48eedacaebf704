package io.gpupool.policy;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.stream.Stream;

class AdmissionRulesTest {
    @TestFactory
    Stream<DynamicTest> shippedAdmissionScenariosPass() {
        return DefaultPolicy.scenarios("admission");
    }
}
